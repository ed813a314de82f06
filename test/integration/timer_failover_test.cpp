// Timer messages and failover: the pending timers live in the commit log (rmq_sys_wheel_timer
// queue 0 + progress records in queue 1), so the slave has them; after kill -9 of the master the
// promoted slave delivers every one, once, at its time; after a planned switchover the demoted
// master stops delivering and only the new master delivers (no timer twice).
#include <doctest/doctest.h>

#include <map>

#include "broker_calls.h"
#include "broker_requests.h"
#include "common/timer_properties.h"
#include "common/wall_clock.h"
#include "failover_cluster.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

void sendTimers(FailoverCluster& c, int id, const std::string& topic, int from, int to, int64_t firstDue) {
  for (int i = from; i < to; ++i) {
    SendSpec s;
    s.topic = topic;
    s.body = "t" + std::to_string(i);
    s.extraProps = {{std::string(prop::TIMER_DELIVER_MS), std::to_string(firstDue + (i - from) * 10)},
                    {"UNIQ_KEY", topic + std::to_string(i)}};
    sendOk(c.client, c.addr(id), s);
  }
}

// Copies of each body in queue 0 of `topic` on broker `id`.
std::map<std::string, int> copiesOn(FailoverCluster& c, int id, const std::string& topic) {
  std::map<std::string, int> copies;
  for (int64_t off = 0;;) {
    auto got = pullMessages(c.client, c.addr(id), {.topic = topic, .offset = off});
    if (got.empty()) break;
    for (auto& m : got) ++copies[m.body];
    off = got.back().queueOffset + 1;
  }
  return copies;
}

int64_t runtimeCount(FailoverCluster& c, int id, const std::string& key) {
  return std::stoll(c.runtimeValue(c.addr(id), key).value_or("-1"));
}

}  // namespace

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

TEST_CASE("timer failover: after a planned switchover the demoted master delivers no timer; the new master delivers the rest (each once)") {
  FailoverCluster c({.mode = "SYNC_MASTER"});
  REQUIRE(c.startAll("TmSw"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  const int n = 40;
  // The first half due at once (delivered by broker 1), the second half 10 s on (after the switch).
  sendTimers(c, 1, "TmSw", 0, n / 2, nowMillis() + 500);
  sendTimers(c, 1, "TmSw", n / 2, n, nowMillis() + 10'000);
  REQUIRE(eventually([&] { return maxOffset(c.client, c.addr(1), "TmSw", 0) == n / 2; }, 15s));
  REQUIRE(eventually([&] { return c.maxPhyOffset(1) == c.maxPhyOffset(2); }, 15s));

  auto r = tools::runTool(RMQADMIN_BIN, {"failoverSwitch", "-n", c.namesrvAddr(), "-b", "broker-f", "-i", "2"});
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  REQUIRE(c.waitMaster(2, 15s));
  REQUIRE(eventually([&] { return c.runtimeValue(c.addr(1), "failoverRole") == std::optional<std::string>("slave"); }, 15s));
  // Demoted: its timer service stopped (index dropped); what it delivered stays counted.
  CHECK(runtimeCount(c, 1, "timerPendingCount") == 0);
  const int64_t byOld = runtimeCount(c, 1, "timerDeliveredCount");
  CHECK(byOld >= n / 2);

  std::map<std::string, int> copies;
  REQUIRE(eventually([&] { return (copies = copiesOn(c, 2, "TmSw")).size() == size_t(n); }, 30s));
  int dup = 0;
  for (auto& [body, k] : copies) dup += k - 1;
  CHECK(dup == 0);  // a planned switchover drains: nothing in flight to redeliver
  CHECK(runtimeCount(c, 1, "timerDeliveredCount") == byOld);  // the demoted master delivered nothing more
  const int64_t byNew = runtimeCount(c, 2, "timerDeliveredCount");
  MESSAGE("delivered by the old master " << byOld << ", by the new master " << byNew);
  CHECK(byNew >= 1);
  CHECK(byOld + byNew == n);
  REQUIRE(c.waitInSync(2, 1, 30s));
  CHECK(copiesOn(c, 1, "TmSw") == copies);  // the old master, now a slave, holds the same deliveries
}
