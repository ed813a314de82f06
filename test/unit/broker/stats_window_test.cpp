// Java's StatsItem sampling math (roles/broker/stats/stats_window.*): the minute / hour / day lists,
// their zero first snapshot, sum / tps / avgpt, the sampling cadence; and the items
// VIEW_BROKER_STATS_DATA reads from the process counters (broker_stats.*).
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include "roles/broker/stats/broker_stats.h"
#include "roles/broker/stats/stats_window.h"

using namespace rmq::broker;

namespace {
constexpr int64_t kT0 = 1'700'000'000'000;
CallTotals calls(int64_t times, int64_t count, int64_t bytes = 0) { return {times, count, bytes}; }
}  // namespace

TEST_CASE("stats window: an unsampled key answers zeros") {
  SampledWindows w;
  auto f = w.all(StatsValue::Count);
  CHECK(f.minute.sum == 0);
  CHECK(f.hour.tps == 0.0);
  CHECK(f.day.avgpt == 0.0);
}

TEST_CASE("stats window: the first sample counts from a zero one period earlier") {
  SampledWindows w;
  w.sample(StatsWindow::Minute, kT0, calls(4, 20, 2000));
  auto m = w.figures(StatsWindow::Minute, StatsValue::Count);
  CHECK(m.sum == 20);
  CHECK(m.tps == doctest::Approx(2.0));  // 20 over the 10 s since the zero snapshot
  CHECK(m.times == 4);
  CHECK(m.avgpt == doctest::Approx(5.0));  // messages per call
  auto bytes = w.figures(StatsWindow::Minute, StatsValue::Bytes);
  CHECK(bytes.sum == 2000);
  CHECK(bytes.avgpt == doctest::Approx(500.0));
  // The other windows have not sampled yet.
  CHECK(w.figures(StatsWindow::Hour, StatsValue::Count).sum == 0);
  CHECK(w.figures(StatsWindow::Day, StatsValue::Count).sum == 0);
}

TEST_CASE("stats window: the minute list keeps 7 snapshots (one minute of 10 s samples)") {
  SampledWindows w;
  // 10 messages per 10 s sample, one call each.
  for (int i = 0; i <= 10; ++i) w.sample(StatsWindow::Minute, kT0 + i * 10'000, calls(i * 10, i * 10));
  auto m = w.figures(StatsWindow::Minute, StatsValue::Count);
  CHECK(m.sum == 60);  // samples 4..10: six intervals
  CHECK(m.tps == doctest::Approx(1.0));
  CHECK(m.avgpt == doctest::Approx(1.0));
  // Nothing more arrives: the window drains as the samples move on.
  for (int i = 11; i <= 17; ++i) w.sample(StatsWindow::Minute, kT0 + i * 10'000, calls(100, 100));
  CHECK(w.figures(StatsWindow::Minute, StatsValue::Count).sum == 0);
}

TEST_CASE("stats window: the hour list keeps 7 ten-minute samples, the day list 25 hourly ones") {
  SampledWindows w;
  for (int i = 0; i <= 8; ++i) w.sample(StatsWindow::Hour, kT0 + i * 600'000, calls(i, i * 600));
  auto h = w.figures(StatsWindow::Hour, StatsValue::Count);
  CHECK(h.sum == 3600);  // samples 2..8
  CHECK(h.tps == doctest::Approx(1.0));
  CHECK(h.avgpt == doctest::Approx(600.0));

  for (int i = 0; i <= 30; ++i) w.sample(StatsWindow::Day, kT0 + i * 3'600'000LL, calls(i, i * 3600));
  auto d = w.figures(StatsWindow::Day, StatsValue::Count);
  CHECK(d.sum == 24 * 3600);  // samples 6..30
  CHECK(d.tps == doctest::Approx(1.0));
}

TEST_CASE("stats window: avgpt is 0 when no call was counted (Java's BROKER_PUT_NUMS)") {
  SampledWindows w;
  w.sample(StatsWindow::Minute, kT0, calls(0, 50));
  auto m = w.figures(StatsWindow::Minute, StatsValue::Count);
  CHECK(m.sum == 50);
  CHECK(m.avgpt == 0.0);
}

TEST_CASE("stats window: sampleDue samples only the due lists") {
  SampledWindows w;
  DueWindows due;
  due.set(static_cast<size_t>(StatsWindow::Hour));
  w.sampleDue(due, kT0, calls(1, 7));
  CHECK(w.figures(StatsWindow::Minute, StatsValue::Count).sum == 0);
  CHECK(w.figures(StatsWindow::Hour, StatsValue::Count).sum == 7);
  CHECK(w.figures(StatsWindow::Day, StatsValue::Count).sum == 0);
}

TEST_CASE("stats window: the schedule fires every list at start, then every 10 s / 10 min / 1 h") {
  SamplingSchedule s(kT0);
  CHECK(s.due(kT0).all());
  CHECK(s.due(kT0 + 1'000).none());
  auto at10s = s.due(kT0 + 10'000);
  CHECK(at10s.test(static_cast<size_t>(StatsWindow::Minute)));
  CHECK_FALSE(at10s.test(static_cast<size_t>(StatsWindow::Hour)));
  // A late tick (25 s instead of 20 s) samples once and keeps the 10 s grid: next at 30 s.
  CHECK(s.due(kT0 + 25'000).test(static_cast<size_t>(StatsWindow::Minute)));
  CHECK(s.due(kT0 + 29'000).none());
  CHECK(s.due(kT0 + 30'000).test(static_cast<size_t>(StatsWindow::Minute)));
  auto at10min = s.due(kT0 + 600'000);
  CHECK(at10min.test(static_cast<size_t>(StatsWindow::Minute)));
  CHECK(at10min.test(static_cast<size_t>(StatsWindow::Hour)));
  CHECK_FALSE(at10min.test(static_cast<size_t>(StatsWindow::Day)));
  CHECK(s.due(kT0 + 3'600'000).all());
}

TEST_CASE("broker stats items: VIEW_BROKER_STATS_DATA names and keys over the process counters") {
  const std::string topic = "StatsWindowUnitTopic";
  putStats().stored(topic, 3, 300);  // one send of a 3-message batch
  putStats().stored(topic, 1, 100);
  getStats().found("unit-cg", topic, 4, 400);
  getStats().noteLatency("unit-cg", topic, 2, std::chrono::milliseconds(7));
  putStats().sentBack(topic, "unit-cg");
  CHECK(brokerStatsItem("TOPIC_PUT_NUMS", topic, "C")->minute.sum == 0);  // exists, not sampled yet

  DueWindows all;
  all.set();
  sampleKeyedCounters(kT0, all);
  auto puts = brokerStatsItem("TOPIC_PUT_NUMS", topic, "C");
  REQUIRE(puts);
  CHECK(puts->minute.sum == 4);
  CHECK(puts->minute.avgpt == doctest::Approx(2.0));  // 4 messages in 2 sends
  CHECK(puts->hour.sum == 4);
  CHECK(puts->day.sum == 4);
  CHECK(brokerStatsItem("TOPIC_PUT_SIZE", topic, "C")->minute.sum == 400);
  CHECK(brokerStatsItem("GROUP_GET_NUMS", topic + "@unit-cg", "C")->minute.sum == 4);
  CHECK(brokerStatsItem("GROUP_GET_SIZE", topic + "@unit-cg", "C")->minute.sum == 400);
  auto latency = brokerStatsItem("GROUP_GET_LATENCY", "2@" + topic + "@unit-cg", "C");
  REQUIRE(latency);
  CHECK(latency->minute.sum == 7);
  CHECK(latency->minute.avgpt == doctest::Approx(7.0));
  CHECK(brokerStatsItem("SNDBCK_PUT_NUMS", topic + "@unit-cg", "C")->minute.sum == 1);
  auto brokerPuts = brokerStatsItem("BROKER_PUT_NUMS", "C", "C");
  REQUIRE(brokerPuts);
  CHECK(brokerPuts->minute.sum >= 4);
  CHECK(brokerPuts->minute.avgpt == 0.0);  // Java adds no times to the broker items

  CHECK_FALSE(brokerStatsItem("NO_SUCH_STATS", topic, "C"));
  CHECK_FALSE(brokerStatsItem("TOPIC_PUT_NUMS", "NeverSeen", "C"));
  CHECK_FALSE(brokerStatsItem("GROUP_GET_FROM_DISK_NUMS", topic + "@unit-cg", "C"));
  CHECK_FALSE(brokerStatsItem("BROKER_PUT_NUMS", "OtherCluster", "C"));
}
