#include "roles/broker/stats/stats_window.h"

namespace rmq::broker {

namespace {
struct ListShape {
  int64_t periodMs;
  size_t kept;
};
constexpr std::array<ListShape, kStatsWindows> kShapes{{
    {10'000, 7},      // minute: samplingInSeconds
    {600'000, 7},     // hour: samplingInMinutes
    {3'600'000, 25},  // day: samplingInHour
}};

int64_t valueOf(const CallTotals& t, StatsValue v) { return v == StatsValue::Count ? t.count : t.bytes; }
}  // namespace

int64_t samplePeriodMs(StatsWindow w) { return kShapes[static_cast<size_t>(w)].periodMs; }

void SampledWindows::sample(StatsWindow w, int64_t nowMs, const CallTotals& totals) {
  const auto& shape = kShapes[static_cast<size_t>(w)];
  auto& list = lists_[static_cast<size_t>(w)];
  if (list.empty()) list.push_back({nowMs - shape.periodMs, CallTotals{}});
  list.push_back({nowMs, totals});
  if (list.size() > shape.kept) list.pop_front();
}

void SampledWindows::sampleDue(const DueWindows& due, int64_t nowMs, const CallTotals& totals) {
  for (size_t i = 0; i < kStatsWindows; ++i)
    if (due.test(i)) sample(static_cast<StatsWindow>(i), nowMs, totals);
}

StatsFigures SampledWindows::figures(StatsWindow w, StatsValue v) const {
  const auto& list = lists_[static_cast<size_t>(w)];
  StatsFigures f;
  if (list.empty()) return f;
  const auto& first = list.front();
  const auto& last = list.back();
  f.sum = valueOf(last.totals, v) - valueOf(first.totals, v);
  int64_t elapsed = last.ms - first.ms;
  f.tps = elapsed > 0 ? static_cast<double>(f.sum) * 1000.0 / static_cast<double>(elapsed) : 0.0;
  f.times = last.totals.times - first.totals.times;
  if (f.times > 0) f.avgpt = static_cast<double>(f.sum) / static_cast<double>(f.times);
  return f;
}

BrokerStatsFigures SampledWindows::all(StatsValue v) const {
  return {figures(StatsWindow::Minute, v), figures(StatsWindow::Hour, v), figures(StatsWindow::Day, v)};
}

SamplingSchedule::SamplingSchedule(int64_t startMs) { next_.fill(startMs); }

DueWindows SamplingSchedule::due(int64_t nowMs) {
  DueWindows out;
  for (size_t i = 0; i < kStatsWindows; ++i) {
    if (nowMs < next_[i]) continue;
    out.set(i);
    int64_t period = kShapes[i].periodMs;
    // Fixed rate: the next instant after now on the original grid (missed ticks are not replayed).
    next_[i] += ((nowMs - next_[i]) / period + 1) * period;
  }
  return out;
}

}  // namespace rmq::broker
