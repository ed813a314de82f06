// ConsumerStatsManager: Java's ConsumeStatus figures (pull RT/TPS, consume RT, OK/failed TPS over the last
// minute, failed messages of the last hour) from recorded counters, at given clock times.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include "client/consumer/consumer_stats_manager.h"

using rmq::client::ConsumerStatsManager;

TEST_CASE("consume stats: minute rates, averages and the hour's failures per topic") {
  ConsumerStatsManager s;
  const int64_t t0 = 1'800'000'000'000;  // a minute boundary
  // 10 s of traffic on T: every second one pull of 32 messages taking 4 ms, consumed in 2 batches.
  for (int i = 0; i < 10; ++i) {
    const int64_t t = t0 + i * 1000;
    s.pullRT("T", 4, t);
    s.pullTPS("T", 32, t);
    s.consumeRT("T", 10, t);
    s.consumeOK("T", 16, t);
    s.consumeRT("T", 30, t);
    s.consumeFailed("T", 16, t);
  }
  auto v = s.status("T", t0 + 10'000);
  CHECK(v.pullRT == doctest::Approx(4));
  CHECK(v.pullTPS == doctest::Approx(32.0));       // 320 messages over 10 s
  CHECK(v.consumeRT == doctest::Approx(20));       // (10 + 30) / 2
  CHECK(v.consumeOKTPS == doctest::Approx(16.0));
  CHECK(v.consumeFailedTPS == doctest::Approx(16.0));
  CHECK(v.consumeFailedMsgs == 160);
  CHECK(s.status("Other", t0).pullTPS == 0);

  // Two minutes later: the minute window is empty, the hour still holds the failures and the RT.
  auto later = s.status("T", t0 + 130'000);
  CHECK(later.pullTPS == 0);
  CHECK(later.consumeOKTPS == 0);
  CHECK(later.consumeFailedTPS == 0);
  CHECK(later.consumeRT == doctest::Approx(20));  // Java falls back to the hour's average
  CHECK(later.consumeFailedMsgs == 160);
  // Past the hour nothing is left.
  auto gone = s.status("T", t0 + 3'700'000);
  CHECK(gone.consumeFailedMsgs == 0);
  CHECK(gone.consumeRT == 0);

  rapidjson::Document d;
  auto json = s.statusTableJson(t0 + 10'000);
  REQUIRE_FALSE(d.Parse(json.c_str()).HasParseError());
  REQUIRE(d.HasMember("T"));
  CHECK(d["T"]["pullTPS"].GetDouble() == doctest::Approx(32.0));
  CHECK(d["T"]["consumeFailedMsgs"].GetInt64() == 160);
  for (const char* k : {"pullRT", "pullTPS", "consumeRT", "consumeOKTPS", "consumeFailedTPS", "consumeFailedMsgs"})
    CHECK_MESSAGE(d["T"].HasMember(k), k);
}
