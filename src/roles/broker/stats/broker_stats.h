#pragma once
// Per-process traffic counters behind GET_BROKER_RUNTIME_INFO's get figures (Java's
// StoreStatsService getMessageTimesTotalFound / Miss and getMessageTransferedMsgCount),
// GET_CONSUME_STATS's consumeTps and the exporter's per-key families (Java BrokerStatsManager's
// TOPIC_PUT_SIZE, GROUP_GET_NUMS, GROUP_GET_SIZE, SNDBCK_PUT_NUMS, read per minute).
// Threads: the processors bump them on the network threads with relaxed atomics (no lock on the
// hot path once a thread has seen a key); the runtime-info sampler calls sample() once a second on
// ctx.background; the readers are safe from any thread.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "roles/broker/stats/stats_window.h"

namespace rmq::broker {

// A (count, bytes) pair of counters per key: a topic, or (topic, group) as Java's "topic@group",
// plus the calls that added them (Java's StatsItem `times`: one per add()).
// Instances live as long as the process (threads cache raw pointers to the entries).
class KeyedCounters {
 public:
  void add(std::string_view topic, std::string_view group, int64_t count, int64_t bytes);
  // Records each key's totals at `nowMs` (keeps the last minute).
  void sample(int64_t nowMs);
  // Java's StatsItemSet sampling: the due windows of every key (stats_window.h).
  void sampleWindows(const DueWindows& due, int64_t nowMs);
  // The windows of one key as Java keys it ("topic" or "topic@group"); nullopt for a key never added.
  std::optional<BrokerStatsFigures> windows(std::string_view key, StatsValue value) const;

  struct LastMinute {
    double countPerSecond = 0;
    double bytesPerSecond = 0;
    int64_t count = 0;  // added during the window
  };
  // Over the samples of the last minute (zeros before two samples).
  LastMinute lastMinute(std::string_view topic, std::string_view group) const;

  struct Totals {
    int64_t count = 0, bytes = 0;
  };
  Totals totals() const;  // over every key, since the process started (takes the registry lock)

 private:
  struct Sample {
    int64_t ms, count, bytes;
  };
  struct Entry {
    std::atomic<int64_t> count{0};
    std::atomic<int64_t> bytes{0};
    std::atomic<int64_t> times{0};
    std::deque<Sample> samples;  // under mu_
    SampledWindows windows;      // under mu_
  };
  Entry* entry(std::string_view topic, std::string_view group);   // per-thread last keys first
  Entry* lookup(std::string_view topic, std::string_view group);  // per-thread map, then the registry

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries_;
};

class GetStats {
 public:
  std::atomic<int64_t> foundTimes{0};       // pulls that returned messages
  std::atomic<int64_t> missTimes{0};        // pulls that returned none (not found, moved, ...)
  std::atomic<int64_t> transferredMsgs{0};  // messages returned by pulls
  std::atomic<int64_t> getTimeMaxMicros{0};  // longest store read of one pull (Java getMessageEntireTimeMax)
  KeyedCounters groups;                      // (topic, group): messages and bytes pulled
  // ("queueId@topic", group): ms per found pull (Java's GROUP_GET_LATENCY with enableDetailStat,
  // key "queueId@topic@group"; value = ms summed, times = pulls).
  KeyedCounters latency;

  void found(std::string_view group, std::string_view topic, int64_t messages, int64_t bytes);
  // A found pull of `queueId` that took `took` (from the read's start to the response composed).
  void noteLatency(std::string_view group, std::string_view topic, int32_t queueId,
                   std::chrono::steady_clock::duration took);
  void miss() { missTimes.fetch_add(1, std::memory_order_relaxed); }
  void noteGetTime(std::chrono::steady_clock::duration took);

  // Messages per second `group` pulled from `topic` over the last minute (0 before two samples).
  double groupTps(const std::string& group, const std::string& topic) const;
};

class PutStats {
 public:
  std::atomic<int64_t> putTimeMaxMicros{0};  // longest append + durability wait (Java putMessageEntireTimeMax)
  std::atomic<int64_t> failedPuts{0};        // appends the store refused (Java putMessageFailedTimes)
  KeyedCounters topics;                // (topic, ""): messages and record bytes stored by sends
                                       // (totals(): Java putMessageSizeTotal)
  KeyedCounters sendBacks;             // (original topic, group): CONSUMER_SEND_MSG_BACK re-puts

  void stored(std::string_view topic, int64_t messages, int64_t bytes);
  void sentBack(std::string_view topic, std::string_view group) { sendBacks.add(topic, group, 1, 0); }
  void notePutTime(std::chrono::steady_clock::duration took);
  void failed() { failedPuts.fetch_add(1, std::memory_order_relaxed); }
};

// Raises `max` (microseconds) to `took` if longer (relaxed compare-exchange, no lock).
void raiseMaxMicros(std::atomic<int64_t>& max, std::chrono::steady_clock::duration took);

// The process's counters (one broker per process; the sampler takes a baseline at start).
GetStats& getStats();
PutStats& putStats();
// Both registries' sample() (the runtime-info sampler, once a second), and the Java windows of
// every registry and of the broker totals when `due`.
void sampleKeyedCounters(int64_t nowMs, const DueWindows& due = {});

// VIEW_BROKER_STATS_DATA: Java BrokerStatsManager's item `statsName` / `statsKey` (TOPIC_PUT_NUMS,
// TOPIC_PUT_SIZE, GROUP_GET_NUMS, GROUP_GET_SIZE, GROUP_GET_LATENCY, SNDBCK_PUT_NUMS,
// BROKER_PUT_NUMS and BROKER_GET_NUMS keyed by `clusterName`); nullopt when no such item exists
// (an unknown name, a name Java never fills such as GROUP_GET_FROM_DISK_NUMS, or a key never seen).
std::optional<BrokerStatsFigures> brokerStatsItem(std::string_view statsName, std::string_view statsKey,
                                                  std::string_view clusterName);

}  // namespace rmq::broker
