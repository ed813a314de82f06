// Unit tests of rmqbench's latency histogram. rmqbench is an executable, not a library, so the
// source under test is compiled into this test directly.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tools/rmqbench/bench_stats.cpp"  // NOLINT: compiled here, see above

using rmq::bench::BenchMeter;
using rmq::bench::LatencyHistogram;

TEST_CASE("histogram percentiles are within the bucket precision") {
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 10000; ++v) h.record(v);  // uniform 1..10000 us
  auto s = h.total();
  CHECK(s.count == 10000);
  CHECK(s.avgUs == doctest::Approx(5000.5));
  CHECK(s.maxUs == 10000);
  CHECK(s.p50Us >= 5000);
  CHECK(s.p50Us <= 5000 * 1.04);
  CHECK(s.p99Us >= 9900);
  CHECK(s.p99Us <= 9900 * 1.04);
  CHECK(s.p999Us >= 9990);
  CHECK(s.p999Us <= 10000);  // capped at the max seen
}

TEST_CASE("small values are exact, huge values land in the last bucket") {
  LatencyHistogram h;
  for (int i = 0; i < 99; ++i) h.record(7);
  h.record(uint64_t{1} << 50);
  auto s = h.total();
  CHECK(s.p50Us == 7);
  CHECK(s.p99Us == 7);
  CHECK(s.maxUs == (uint64_t{1} << 50));
  CHECK(s.p999Us == s.maxUs);
}

TEST_CASE("interval view resets, total keeps everything") {
  LatencyHistogram h;
  h.record(100);
  h.record(300);
  auto first = h.takeInterval();
  CHECK(first.count == 2);
  CHECK(first.maxUs == 300);
  CHECK(h.takeInterval().count == 0);
  h.record(50);
  auto second = h.takeInterval();
  CHECK(second.count == 1);
  CHECK(second.maxUs == 50);
  CHECK(h.total().count == 3);
  CHECK(h.total().maxUs == 300);
}

TEST_CASE("concurrent recording loses nothing") {
  LatencyHistogram h;
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&h, t] { for (int i = 0; i < 20000; ++i) h.record(static_cast<uint64_t>(i % 1000 + t)); });
  uint64_t intervals = 0;
  for (int i = 0; i < 50; ++i) intervals += h.takeInterval().count;
  for (auto& t : ts) t.join();
  intervals += h.takeInterval().count;
  CHECK(h.total().count == 80000);
  CHECK(intervals == 80000);
}

TEST_CASE("failure reasons: counted per text, most frequent first, at most kReasons then \"other\"") {
  BenchMeter meter("send", {"send"});
  CHECK(meter.failureReasons().empty());
  for (int i = 0; i < 3; ++i) meter.noteFailure("SLAVE_NOT_AVAILABLE");
  meter.noteFailure("FLUSH_SLAVE_TIMEOUT");
  auto reasons = meter.failureReasons();
  REQUIRE(reasons.size() == 2);
  CHECK(reasons[0] == std::pair<std::string, uint64_t>{"SLAVE_NOT_AVAILABLE", 3});
  CHECK(reasons[1] == std::pair<std::string, uint64_t>{"FLUSH_SLAVE_TIMEOUT", 1});
  for (size_t i = 0; i < BenchMeter::kReasons + 3; ++i) meter.noteFailure("error " + std::to_string(i));
  reasons = meter.failureReasons();
  CHECK(reasons.size() == BenchMeter::kReasons + 1);  // the kReasons distinct texts, then "other"
  uint64_t other = 0, total = 0;
  for (auto& [why, n] : reasons) {
    if (why == "other") other = n;
    total += n;
  }
  CHECK(other == 5);  // 2 + 11 texts, 8 kept: the last 5 are "other"
  CHECK(total == 4 + BenchMeter::kReasons + 3);
}
