// Timer messages and failover: the pending timers live in the commit log (rmq_sys_wheel_timer
// queue 0 + progress records in queue 1), so the slave has them; after kill -9 of the master the
// promoted slave delivers every one, once, at its time.
#include <doctest/doctest.h>

#include <map>

#include "broker_calls.h"
#include "broker_requests.h"
#include "common/timer_properties.h"
#include "common/wall_clock.h"
#include "failover_cluster.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

TEST_CASE("timer failover: the master dies with pending timers; the promoted slave delivers each once, at its time") {
  FailoverCluster c({.mode = "SYNC_MASTER"});
  REQUIRE(c.startAll("TmFo"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  const int n = 40;
  int64_t t0 = nowMillis();
  // Half due before the kill (delivered by broker 1), half well after it (by broker 2).
  for (int i = 0; i < n; ++i) {
    SendSpec s;
    s.topic = "TmFo";
    s.body = "t" + std::to_string(i);
    s.extraProps = {{std::string(prop::TIMER_DELIVER_MS), std::to_string(i < n / 2 ? t0 + 500 + i : t0 + 8000 + i)},
                    {"UNIQ_KEY", "TMFO" + std::to_string(i)}};
    sendOk(c.client, c.addr(1), s);
  }
  REQUIRE(eventually([&] { return maxOffset(c.client, c.addr(1), "TmFo", 0) == n / 2; }, 15s));
  REQUIRE(eventually([&] { return c.maxPhyOffset(1) == c.maxPhyOffset(2); }, 15s));
  // The slave holds the timers but does not deliver them.
  CHECK(c.runtimeValue(c.addr(2), "timerPendingCount") == std::optional<std::string>("0"));
  c.broker(1).kill();
  REQUIRE(c.waitMaster(2, 15s));
  std::map<std::string, int> copies;
  std::map<std::string, int64_t> lateBy;
  REQUIRE(eventually([&] {
    copies.clear();
    for (int64_t off = 0;;) {
      auto got = pullMessages(c.client, c.addr(2), {.topic = "TmFo", .offset = off});
      if (got.empty()) break;
      for (auto& m : got) {
        ++copies[m.body];
        lateBy[m.body] = m.storeTimestamp - std::stoll(*m.property(prop::TIMER_OUT_MS));
      }
      off = got.back().queueOffset + 1;
    }
    return copies.size() == size_t(n);
  }, 30s));
  int dup = 0;
  for (auto& [body, k] : copies) dup += k - 1;
  MESSAGE("delivered " << copies.size() << ", redelivered after the kill: " << dup);
  CHECK(dup <= 3);  // only what was in flight at the kill
  for (auto& [body, late] : lateBy) CHECK(late >= 0);
}
