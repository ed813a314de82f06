// Automatic failover with real processes (issue 19): etcd, a name server and one broker group with
// failoverEnable. Faults: kill -9 of the master under SYNC_MASTER load; SIGSTOP of the master; the
// old master restarted (it rejoins as a slave, its commit log identical to the new master's).
// Partition and etcd faults: failover_faults_test.cpp; Sender and the store audit: failover_checks.h.
#include <doctest/doctest.h>
#include <signal.h>

#include <set>
#include <string>

#include "broker_requests.h"
#include "common/response_code.h"
#include "failover_checks.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST_CASE("failover: kill -9 of a SYNC_MASTER under load; the in-sync slave takes over, no SEND_OK lost, no reordering (duplicates counted); the old master rejoins as a slave with an identical commit log") {
  FailoverCluster c({.mode = "SYNC_MASTER"});
  REQUIRE(c.startAll("FoT"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  CHECK(c.routeMaster("FoT") == std::optional<std::string>(c.addr(1)));

  RoleSampler roles(c);  // epochs only rise, never two masters at one epoch
  Sender sender(c, {.topic = "FoT"});
  REQUIRE(sender.waitOks(300, 30s));
  auto killedAt = Clock::now();
  c.broker(1).kill();
  REQUIRE(c.waitMaster(2, 15s));
  REQUIRE(eventually([&] { return sender.firstOkAfter(killedAt, c.addr(2)).has_value(); }, 15s));
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(*sender.firstOkAfter(killedAt, c.addr(2)) - killedAt);
  MESSAGE("kill -9 -> first SEND_OK on the new master: " << took.count() << " ms");
  CHECK(c.routeMaster("FoT") == std::optional<std::string>(c.addr(2)));
  CHECK(c.runtimeValue(c.addr(2), "failoverEpoch") == std::optional<std::string>("2"));
  int64_t before = sender.okCount();
  REQUIRE(sender.waitOks(before + 200, 30s));

  // The old master comes back: it follows broker 2 and catches up.
  REQUIRE(c.broker(1).restart(30s));
  REQUIRE(c.waitInSync(2, 1, 30s));
  before = sender.okCount();
  REQUIRE(sender.waitOks(before + 200, 30s));
  sender.finish();

  // The sender resends a body until SEND_OK, so one stored but unanswered (in flight at the kill)
  // is stored twice: counted, not an error. Loss and reordering are.
  auto a = auditStored(c, c.addr(2), "FoT", sender.acknowledged());
  MESSAGE("kill -9, on the new master: " << a.describe() << " (" << sender.attempts() << " attempts)");
  CHECK(a.lost == 0);
  CHECK(a.outOfOrder == 0);

  REQUIRE(eventually([&] { return c.maxPhyOffset(1) == c.maxPhyOffset(2); }, 30s));
  CHECK(c.runtimeValue(c.addr(1), "failoverRole") == std::optional<std::string>("slave"));
  CHECK(commitLogsDiffer(c, 1, 2, *c.maxPhyOffset(2)) == "");
  roles.finish();
  auto violations = roles.violations();
  MESSAGE(roles.samples() << " role samples of both brokers");
  for (auto& v : violations) MESSAGE(v);
  CHECK(violations.empty());
}

TEST_CASE("failover: a master frozen (SIGSTOP) is replaced; after SIGCONT it acknowledges no send and follows the new master") {
  FailoverCluster c({.mode = "SYNC_MASTER"});
  REQUIRE(c.startAll("FoS"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  RoleSampler roles(c);  // the frozen master still says master at epoch 1: never two at one epoch
  Sender sender(c, {.topic = "FoS"});
  REQUIRE(sender.waitOks(200, 30s));

  auto stoppedAt = Clock::now();
  REQUIRE(::kill(c.broker(1).pid(), SIGSTOP) == 0);
  REQUIRE(c.waitMaster(2, 15s));
  REQUIRE(eventually([&] { return sender.firstOkAfter(stoppedAt, c.addr(2)).has_value(); }, 15s));
  auto took =
      std::chrono::duration_cast<std::chrono::milliseconds>(*sender.firstOkAfter(stoppedAt, c.addr(2)) - stoppedAt);
  MESSAGE("SIGSTOP -> first SEND_OK on the new master: " << took.count() << " ms");

  // Resumed, the old master must not acknowledge anything: it learns of epoch 2 and steps down.
  REQUIRE(::kill(c.broker(1).pid(), SIGCONT) == 0);
  TestClient direct;
  int oks = 0;
  for (int i = 0; i < 20; ++i) {
    auto r = direct.call(c.addr(1), sendRequest({.topic = "FoS", .body = "stale-" + std::to_string(i)}), 3s);
    if (r.ok() && r->code == ResponseCode::SUCCESS) ++oks;
  }
  CHECK(oks == 0);
  REQUIRE(eventually([&] { return c.runtimeValue(c.addr(1), "failoverRole") == std::optional<std::string>("slave"); }, 15s));
  REQUIRE(c.waitInSync(2, 1, 30s));
  sender.finish();

  auto a = auditStored(c, c.addr(2), "FoS", sender.acknowledged());
  MESSAGE("SIGSTOP, on the new master: " << a.describe());
  CHECK(a.lost == 0);
  std::set<std::string> onNew;
  for (auto& queue : storedBodies(c, c.addr(2), "FoS"))
    onNew.insert(queue.begin(), queue.end());
  for (int i = 0; i < 20; ++i) CHECK(onNew.count("stale-" + std::to_string(i)) == 0);
  roles.finish();
  auto violations = roles.violations();
  MESSAGE(roles.samples() << " role samples of both brokers");
  for (auto& v : violations) MESSAGE(v);
  CHECK(violations.empty());
}

TEST_CASE("failover: a planned switchover (rmqadmin failoverSwitch) under ASYNC_MASTER load loses no SEND_OK; failoverStatus shows the new master") {
  FailoverCluster c({.mode = "ASYNC_MASTER"});
  REQUIRE(c.startAll("FoW"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  Sender sender(c, {.topic = "FoW"});
  REQUIRE(sender.waitOks(300, 30s));

  auto r = tools::runTool(RMQADMIN_BIN, {"failoverSwitch", "-n", c.namesrvAddr(), "-b", "broker-f", "-i", "2"});
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("switchover of broker-f") != std::string::npos);
  REQUIRE(c.waitMaster(2, 15s));
  CHECK(c.runtimeValue(c.addr(2), "failoverEpoch") == std::optional<std::string>("2"));
  REQUIRE(eventually([&] { return c.runtimeValue(c.addr(1), "failoverRole") == std::optional<std::string>("slave"); }, 15s));
  int64_t before = sender.okCount();
  REQUIRE(sender.waitOks(before + 200, 30s));
  REQUIRE(c.waitInSync(2, 1, 30s));
  sender.finish();

  // ASYNC_MASTER, yet nothing acknowledged is lost: the master drained and waited for broker 2.
  auto a = auditStored(c, c.addr(2), "FoW", sender.acknowledged());
  MESSAGE("switchover, on the new master: " << a.describe());
  CHECK(a.lost == 0);
  CHECK(a.outOfOrder == 0);

  auto status = tools::runTool(RMQADMIN_BIN, {"failoverStatus", "-n", c.namesrvAddr(), "-b", "broker-f"});
  INFO(status.out << status.err);
  REQUIRE(status.exitCode == 0);
  CHECK(status.out.find(c.addr(2) + "  master  2") != std::string::npos);
  CHECK(status.out.find(c.addr(1) + "  slave   2") != std::string::npos);
}
