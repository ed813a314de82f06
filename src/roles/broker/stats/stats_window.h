#pragma once
// Java's StatsItem sampling (common/stats/StatsItem.java): every 10 s, 10 min and 1 h a snapshot
// (time, times, value) of a counter goes into the minute (7 kept), hour (7) and day (25) lists; a
// window's figures are last - first over its list: sum, tps = sum * 1000 / elapsed ms, avgpt =
// sum / times. A list's first snapshot is preceded by a zero one dated one period earlier, so a key
// created between two samples counts everything from its creation. VIEW_BROKER_STATS_DATA (315)
// answers these figures (BrokerStatsData: statsMinute / statsHour / statsDay).
// Not thread-safe: the owner (KeyedCounters, BrokerTotals) guards it.
#include <array>
#include <bitset>
#include <cstdint>
#include <deque>

namespace rmq::broker {

enum class StatsWindow : size_t { Minute, Hour, Day, Count };
constexpr size_t kStatsWindows = static_cast<size_t>(StatsWindow::Count);
using DueWindows = std::bitset<kStatsWindows>;

// Sampling period of the list behind each window (Java: 10 s, 10 min, 1 h).
int64_t samplePeriodMs(StatsWindow w);

// The counters of one key at a sampling instant: calls (Java's `times`) and the two values a
// KeyedCounters entry keeps (count of messages, bytes).
struct CallTotals {
  int64_t times = 0;
  int64_t count = 0;
  int64_t bytes = 0;
};
enum class StatsValue { Count, Bytes };

// One window's figures (Java's StatsSnapshot / BrokerStatsItem).
struct StatsFigures {
  int64_t sum = 0;
  double tps = 0;
  double avgpt = 0;
  int64_t times = 0;
};
struct BrokerStatsFigures {  // Java's BrokerStatsData
  StatsFigures minute, hour, day;
};

class SampledWindows {
 public:
  void sample(StatsWindow w, int64_t nowMs, const CallTotals& totals);
  void sampleDue(const DueWindows& due, int64_t nowMs, const CallTotals& totals);
  StatsFigures figures(StatsWindow w, StatsValue v) const;
  BrokerStatsFigures all(StatsValue v) const;

 private:
  struct Snapshot {
    int64_t ms;
    CallTotals totals;
  };
  std::array<std::deque<Snapshot>, kStatsWindows> lists_;
};

// When each list is due (Java: scheduleAtFixedRate with delay 0 from the broker's start). Called
// by the once-a-second sampler; a late tick samples once, then keeps the original cadence.
class SamplingSchedule {
 public:
  explicit SamplingSchedule(int64_t startMs);
  DueWindows due(int64_t nowMs);

 private:
  std::array<int64_t, kStatsWindows> next_;
};

}  // namespace rmq::broker
