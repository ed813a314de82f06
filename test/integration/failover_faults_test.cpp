// Automatic failover under harder faults, with real processes (issue 19): the master cut off from
// etcd and its slave by a network partition (its own network namespace, a veth link taken down),
// and the etcd leader killed in the middle of a failover (three etcd members). Each drill checks:
// a new master at epoch 2, sends resumed through the name server's route, no SEND_OK lost, no
// reordering within a queue (duplicates counted and printed), the old master back as a slave with
// a commit log identical to the new master's. Helpers: failover_cluster.h, failover_checks.h,
// netns_link.h.
#include <doctest/doctest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>

#include "failover_checks.h"
#include "netns_link.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::chrono::milliseconds kLeaseTtl{2000};  // failoverLeaseTtlMs (default)

long long msSince(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

// A runtime-info value of `addr` asked from inside the link's namespace (the one place a
// partitioned broker can still be reached from).
std::optional<std::string> runtimeValueInside(const NetnsLink& link, const std::string& addr, const std::string& key) {
  std::optional<std::string> value;
  std::thread asker([&] {
    if (!link.enterOnThisThread()) return;
    TestClient client;
    value = FailoverCluster::runtimeValue(client, addr, key);
  });
  asker.join();
  return value;
}

// After a fault: the old master (1) follows broker 2 as a slave at epoch 2 (a restarted broker is a
// slave of no epoch until it read the group's state: wait for both) and joins the in-sync set.
void checkRejoinedAsSlave(FailoverCluster& c) {
  REQUIRE(eventually(
      [&] {
        return c.runtimeValue(c.addr(1), "failoverRole") == std::optional<std::string>("slave") &&
               c.runtimeValue(c.addr(1), "failoverEpoch") == std::optional<std::string>("2");
      },
      30s));
  REQUIRE(c.waitInSync(2, 1, 30s));
}

void checkCommitLogsIdentical(FailoverCluster& c) {
  REQUIRE(eventually([&] { return c.maxPhyOffset(1) && c.maxPhyOffset(1) == c.maxPhyOffset(2); }, 30s));
  CHECK(commitLogsDiffer(c, 1, 2, *c.maxPhyOffset(2)) == "");
}

}  // namespace

TEST_CASE("failover: the master partitioned from etcd and its slave (network namespaces and veth pairs): the slave takes over, the cut-off master acknowledges nothing once its lease could have expired, and rejoins as a slave after the link heals") {
  std::string whyNot;
  auto link = NetnsLink::create(whyNot);
  if (!link) {
    MESSAGE("skipped: the partition drill needs its own network namespace: " << whyNot);
    return;
  }
  // SYNC_MASTER: the cut-off master cannot reach its slave, so it could not acknowledge anyway;
  // ASYNC_MASTER: its lease fence alone stops it (what it acknowledged unreplicated before is lost
  // by definition, and cut from its log when it rejoins).
  std::string mode;
  SUBCASE("SYNC_MASTER") { mode = "SYNC_MASTER"; }
  SUBCASE("ASYNC_MASTER") { mode = "ASYNC_MASTER"; }
  CAPTURE(mode);
  // Broker 1 runs inside the namespace at its address there; etcd, the name server and broker 2
  // listen on the root side of the link (also reachable from the test's namespace while it is cut).
  FailoverCluster c({.mode = mode,
                     .host = link->rootIp(),
                     .placement = {{1, BrokerPlacement{.launcher = link->launcher(), .ip = link->nsIp()}}}});
  REQUIRE(c.startAll("FoP"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  REQUIRE(c.routeMaster("FoP") == std::optional<std::string>(c.addr(1)));

  Sender routed(c, {.topic = "FoP"});
  // Straight to broker 1 from inside its namespace: the one client still reaching it once cut.
  std::atomic<bool> entered{false};
  Sender inside(c, {.topic = "FoP", .prefix = "in", .target = c.addr(1), .onThread = [&] { entered = link->enterOnThisThread(); }});
  REQUIRE(routed.waitOks(200, 30s));
  REQUIRE(inside.waitOks(50, 30s));
  REQUIRE(entered);

  const auto cutAt = Clock::now();
  REQUIRE(link->cut());
  REQUIRE(c.waitMaster(2, 20s));
  const auto electedAt = Clock::now();
  REQUIRE(eventually([&] { return routed.firstOkAfter(cutAt, c.addr(2)).has_value(); }, 20s));
  MESSAGE(mode << ": partition -> broker 2 master after " << msSince(cutAt, electedAt)
               << " ms, first SEND_OK through the route " << msSince(cutAt, *routed.firstOkAfter(cutAt, c.addr(2)))
               << " ms");
  CHECK(c.runtimeValue(c.addr(2), "failoverEpoch") == std::optional<std::string>("2"));
  CHECK(c.routeMaster("FoP") == std::optional<std::string>(c.addr(2)));

  // Broker 1 renewed its lease last before the cut: from cutAt + TTL the lease may be gone and
  // another master elected, so nothing may be acknowledged after that.
  const auto leaseMayBeGone = cutAt + kLeaseTtl;
  REQUIRE(eventually([&] { return Clock::now() > leaseMayBeGone; }, 10s));
  const int64_t attemptsThen = inside.attempts();
  REQUIRE(eventually([&] { return inside.attempts() >= attemptsThen + 5; }, 30s));  // it keeps trying
  CHECK(runtimeValueInside(*link, c.addr(1), "failoverMayAcknowledge") == std::optional<std::string>("false"));
  CHECK_FALSE(inside.firstOkAfter(leaseMayBeGone).has_value());

  const auto healedAt = Clock::now();
  REQUIRE(link->restore());
  checkRejoinedAsSlave(c);
  MESSAGE(mode << ": link restored -> broker 1 in sync as a slave of broker 2 after " << msSince(healedAt, Clock::now())
               << " ms");
  int64_t before = routed.okCount();
  REQUIRE(routed.waitOks(before + 100, 30s));
  routed.finish();
  inside.finish();
  CHECK_FALSE(inside.firstOkAfter(leaseMayBeGone).has_value());  // nor as a slave afterwards
  const auto lastInside = inside.lastOk();
  MESSAGE(mode << ": from inside the namespace to broker 1: " << inside.okCount() << " SEND_OK of "
               << inside.attempts() << " attempts, the last " << (lastInside ? msSince(cutAt, *lastInside) : -1)
               << " ms after the cut (lease TTL " << kLeaseTtl.count() << " ms)");

  auto acknowledged = routed.acknowledged();
  for (auto& b : inside.acknowledged()) acknowledged.push_back(b);
  auto a = auditStored(c, c.addr(2), "FoP", acknowledged);
  MESSAGE(mode << ", on the new master: " << a.describe());
  CHECK(a.outOfOrder == 0);
  if (mode == "SYNC_MASTER") {
    CHECK(a.lost == 0);
  } else {  // only what the cut-off master acknowledged (and never replicated) can be missing
    std::set<std::string> byOld;
    for (auto* s : {&routed, &inside})
      for (auto& b : s->acknowledgedBy(c.addr(1))) byOld.insert(b);
    size_t fromNew = 0;
    for (auto& b : a.missing) fromNew += byOld.count(b) == 0;
    CHECK(fromNew == 0);
  }
  checkCommitLogsIdentical(c);
}

TEST_CASE("failover: the etcd leader killed in the middle of a failover (3 etcd members): the slave still takes over; the etcd member and the old master come back, the old master as a slave with an identical commit log") {
  FailoverCluster c({.mode = "SYNC_MASTER", .etcdMembers = 3});
  REQUIRE(c.startAll("FoE"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  const auto etcdLeader = c.etcd.leader();
  REQUIRE(etcdLeader.has_value());

  Sender sender(c, {.topic = "FoE"});
  REQUIRE(sender.waitOks(200, 30s));
  const auto killedAt = Clock::now();
  c.broker(1).kill();
  c.etcd.kill(*etcdLeader);  // the master's lease is still alive: etcd must elect before it expires
  REQUIRE(c.waitMaster(2, 20s));
  const auto electedAt = Clock::now();
  REQUIRE(eventually([&] { return sender.firstOkAfter(killedAt, c.addr(2)).has_value(); }, 20s));
  MESSAGE("kill -9 + etcd leader killed -> broker 2 master after " << msSince(killedAt, electedAt)
                                                                   << " ms, first SEND_OK through the route "
                                                                   << msSince(killedAt, *sender.firstOkAfter(killedAt, c.addr(2)))
                                                                   << " ms");
  CHECK(c.runtimeValue(c.addr(2), "failoverEpoch") == std::optional<std::string>("2"));
  const auto newLeader = c.etcd.leader();
  CHECK(newLeader.has_value());
  CHECK(newLeader != etcdLeader);
  int64_t before = sender.okCount();
  REQUIRE(sender.waitOks(before + 200, 30s));

  REQUIRE(c.etcd.restart(*etcdLeader, 30s));
  REQUIRE(c.broker(1).restart(30s));
  checkRejoinedAsSlave(c);
  before = sender.okCount();
  REQUIRE(sender.waitOks(before + 100, 30s));
  sender.finish();

  auto a = auditStored(c, c.addr(2), "FoE", sender.acknowledged());
  MESSAGE("etcd leader killed mid-failover, on the new master: " << a.describe());
  CHECK(a.lost == 0);
  CHECK(a.outOfOrder == 0);
  checkCommitLogsIdentical(c);
}
