// EtcdClient against a real one-member etcd (Debian etcd-server) on 127.0.0.1.
#include <doctest/doctest.h>

#include <string>
#include <thread>

#include "coord/etcd_client.h"
#include "coord_test_util.h"
#include "etcd_cluster.h"

using namespace rmq::coord;
using rmq::coord::test::runOn;

namespace {

struct OneEtcd {
  OneEtcd() { etcd.start(); }
  template <class T>
  T run(asio::awaitable<T> task) { return runOn(io, std::move(task)); }

  rmq::test::EtcdCluster etcd{1};
  asio::io_context io;
  EtcdClient client{io.get_executor(), EtcdOptions{.endpoints = etcd.endpoints()}};
};

std::vector<std::string> keysOf(const std::vector<KeyValue>& kvs) {
  std::vector<std::string> out;
  for (const auto& kv : kvs) out.push_back(kv.key);
  return out;
}

}  // namespace

TEST_CASE("etcd client: put, range, prefix range and delete (binary keys and values)") {
  OneEtcd f;
  const std::string binary("v\0\xff\n", 4);
  auto rev1 = f.run(f.client.put("/rmq/a/1", "one"));
  REQUIRE_MESSAGE(rev1, rev1.error().message);
  auto rev2 = f.run(f.client.put("/rmq/a/2", binary));
  REQUIRE(rev2);
  CHECK(*rev2 > *rev1);
  REQUIRE(f.run(f.client.put("/rmq/b", "other")));
  REQUIRE(f.run(f.client.put("/rmq/a/1", "uno")));

  auto one = f.run(f.client.range("/rmq/a/1"));
  REQUIRE(one);
  REQUIRE(one->size() == 1);
  CHECK((*one)[0].value == "uno");
  CHECK((*one)[0].version == 2);
  CHECK((*one)[0].createRevision == *rev1);
  CHECK((*one)[0].modRevision > *rev2);
  CHECK((*one)[0].lease == 0);

  auto prefixed = f.run(f.client.range("/rmq/a/", true));
  REQUIRE(prefixed);
  CHECK(keysOf(*prefixed) == std::vector<std::string>{"/rmq/a/1", "/rmq/a/2"});
  CHECK((*prefixed)[1].value == binary);
  auto all = f.run(f.client.range("", true));
  REQUIRE(all);
  CHECK(keysOf(*all) == std::vector<std::string>{"/rmq/a/1", "/rmq/a/2", "/rmq/b"});

  auto missing = f.run(f.client.range("/rmq/none"));
  REQUIRE(missing);
  CHECK(missing->empty());

  CHECK(f.run(f.client.remove("/rmq/a/", true)).value() == 2);
  CHECK(f.run(f.client.remove("/rmq/a/1")).value() == 0);
  CHECK(keysOf(f.run(f.client.range("/rmq/", true)).value()) == std::vector<std::string>{"/rmq/b"});
  CHECK(f.run(f.client.remove("/rmq/b")).value() == 1);
  CHECK(f.client.currentEndpoint() == f.etcd.endpoint(0));
}

TEST_CASE("etcd client: txn compare mod revision: the second writer with a stale revision fails") {
  OneEtcd f;
  auto rev = f.run(f.client.put("/rmq/master", "none"));
  REQUIRE(rev);
  auto writer = [&](std::string name) {
    std::vector<Compare> unchanged{{.key = "/rmq/master", .target = Compare::Target::Mod, .number = *rev}};
    std::vector<TxnOp> claim{{.key = "/rmq/master", .value = name}};
    std::vector<TxnOp> read{{.kind = TxnOp::Kind::Range, .key = "/rmq/master"}};
    return f.run(f.client.txn(unchanged, claim, read));
  };
  auto first = writer("broker-a");
  REQUIRE_MESSAGE(first, first.error().message);
  CHECK(first->succeeded);
  CHECK(first->revision > *rev);
  CHECK(first->ranges.empty());  // the success branch has no range op

  auto second = writer("broker-b");
  REQUIRE(second);
  CHECK_FALSE(second->succeeded);
  REQUIRE(second->ranges.size() == 1);
  REQUIRE(second->ranges[0].size() == 1);
  CHECK(second->ranges[0][0].value == "broker-a");
  CHECK(second->ranges[0][0].modRevision == first->revision);
}

TEST_CASE("etcd client: txn create revision 0 claims an absent key once; version and value compares") {
  OneEtcd f;
  std::vector<Compare> absent{{.key = "/rmq/lock", .target = Compare::Target::Create, .number = 0}};
  std::vector<TxnOp> take{{.key = "/rmq/lock", .value = "me"}};
  CHECK(f.run(f.client.txn(absent, take))->succeeded);
  CHECK_FALSE(f.run(f.client.txn(absent, take))->succeeded);

  // Version > 0 and value == "me" hold: both ranges come back in order, then the delete runs.
  std::vector<Compare> held{{.key = "/rmq/lock", .target = Compare::Target::Version, .op = Compare::Op::Greater, .number = 0},
                            {.key = "/rmq/lock", .target = Compare::Target::Value, .value = "me"}};
  REQUIRE(f.run(f.client.put("/rmq/other", "x")));
  std::vector<TxnOp> readThenDrop{{.kind = TxnOp::Kind::Range, .key = "/rmq/other"},
                                  {.kind = TxnOp::Kind::Range, .key = "/rmq/", .prefix = true},
                                  {.kind = TxnOp::Kind::Delete, .key = "/rmq/lock"}};
  auto r = f.run(f.client.txn(held, readThenDrop));
  REQUIRE(r);
  CHECK(r->succeeded);
  REQUIRE(r->ranges.size() == 2);
  CHECK(keysOf(r->ranges[0]) == std::vector<std::string>{"/rmq/other"});
  CHECK(keysOf(r->ranges[1]) == std::vector<std::string>{"/rmq/lock", "/rmq/other"});
  CHECK(f.run(f.client.range("/rmq/lock"))->empty());

  // Gone: version 0 is not > 0 (failure branch); value compares against a missing key fail as well.
  auto again = f.run(f.client.txn(held, {}, {{.key = "/rmq/lock", .value = "later"}}));
  REQUIRE(again);
  CHECK_FALSE(again->succeeded);
  std::vector<Compare> notMe{{.key = "/rmq/lock", .target = Compare::Target::Value, .op = Compare::Op::NotEqual, .value = "me"}};
  CHECK(f.run(f.client.txn(notMe, {}))->succeeded);
  std::vector<Compare> older{{.key = "/rmq/lock", .target = Compare::Target::Version, .op = Compare::Op::Less, .number = 2}};
  CHECK(f.run(f.client.txn(older, {}))->succeeded);  // version 1 now
}

TEST_CASE("etcd client: lease grant, put with lease, keepalive returns TTL, lease compare, revoke deletes the key") {
  OneEtcd f;
  auto lease = f.run(f.client.leaseGrant(10));
  REQUIRE_MESSAGE(lease, lease.error().message);
  CHECK(lease->id != 0);
  CHECK(lease->ttlSeconds == 10);
  REQUIRE(f.run(f.client.put("/rmq/alive", "b", lease->id)));
  auto kv = f.run(f.client.range("/rmq/alive"));
  REQUIRE(kv->size() == 1);
  CHECK((*kv)[0].lease == lease->id);

  auto ttl = f.run(f.client.leaseKeepAlive(lease->id));
  REQUIRE_MESSAGE(ttl, ttl.error().message);
  CHECK(*ttl == 10);
  auto left = f.run(f.client.leaseTimeToLive(lease->id));
  REQUIRE(left);
  CHECK(*left > 0);
  CHECK(*left <= 10);

  std::vector<Compare> ours{{.key = "/rmq/alive", .target = Compare::Target::Lease, .number = lease->id}};
  std::vector<Compare> noLease{{.key = "/rmq/alive", .target = Compare::Target::Lease, .number = 0}};
  CHECK(f.run(f.client.txn(ours, {}))->succeeded);
  CHECK_FALSE(f.run(f.client.txn(noLease, {}))->succeeded);

  REQUIRE(f.run(f.client.leaseRevoke(lease->id)));
  CHECK(f.run(f.client.range("/rmq/alive"))->empty());
  auto gone = f.run(f.client.leaseKeepAlive(lease->id));
  REQUIRE_FALSE(gone);
  CHECK(isLeaseGone(gone.error()));
  auto revokedAgain = f.run(f.client.leaseRevoke(lease->id));
  REQUIRE_FALSE(revokedAgain);
  CHECK(isLeaseGone(revokedAgain.error()));
  auto putOnGone = f.run(f.client.put("/rmq/alive", "b", lease->id));
  REQUIRE_FALSE(putOnGone);
  CHECK(isLeaseGone(putOnGone.error()));
  CHECK(isLeaseGone(f.run(f.client.leaseTimeToLive(lease->id)).error()));
}

TEST_CASE("etcd client: an expired lease (TTL 2 s, no keepalive) removes the key and keepalive reports it gone") {
  OneEtcd f;
  auto lease = f.run(f.client.leaseGrant(2));
  REQUIRE(lease);
  CHECK(lease->ttlSeconds == 2);
  REQUIRE(f.run(f.client.put("/rmq/ephemeral", "x", lease->id)));
  REQUIRE(f.run(f.client.range("/rmq/ephemeral"))->size() == 1);
  bool vanished = false;
  for (int i = 0; i < 100 && !vanished; ++i) {  // bounded: 10 s for a 2 s lease
    auto r = f.run(f.client.range("/rmq/ephemeral"));
    REQUIRE(r);
    vanished = r->empty();
    if (!vanished) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  REQUIRE(vanished);
  auto gone = f.run(f.client.leaseKeepAlive(lease->id));
  REQUIRE_FALSE(gone);
  CHECK(isLeaseGone(gone.error()));
  CHECK(gone.error().message.find("not found") != std::string::npos);
}

TEST_CASE("etcd client: waitForChange wakes at a change made after or before the watch, times out without one") {
  OneEtcd f;
  auto rev = f.run(f.client.put("/rmq/w/leader", "a"));
  REQUIRE(rev);
  // Nothing changes: false after maxWait (not an error).
  auto t0 = std::chrono::steady_clock::now();
  auto quiet = f.run(f.client.waitForChange("/rmq/w/leader", *rev + 1, std::chrono::milliseconds(300)));
  REQUIRE_MESSAGE(quiet, quiet.error().message);
  CHECK_FALSE(*quiet);
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(300));
  // A change already made since fromRevision counts at once.
  REQUIRE(f.run(f.client.put("/rmq/w/leader", "b")));
  auto past = f.run(f.client.waitForChange("/rmq/w/leader", *rev + 1, std::chrono::seconds(10)));
  REQUIRE(past);
  CHECK(*past);
  // A delete by another client while the watch waits wakes it; other keys do not.
  auto now = f.run(f.client.range("/rmq/w/leader"));
  REQUIRE(now);
  REQUIRE(now->size() == 1);
  std::thread other([&] {
    asio::io_context io2;
    EtcdClient second(io2.get_executor(), EtcdOptions{.endpoints = f.etcd.endpoints()});
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    (void)runOn(io2, second.put("/rmq/w/other", "x"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    (void)runOn(io2, second.remove("/rmq/w/leader"));
  });
  auto woken = f.run(f.client.waitForChange("/rmq/w/leader", (*now)[0].modRevision + 1, std::chrono::seconds(10)));
  other.join();
  REQUIRE(woken);
  CHECK(*woken);  // true only by an event: the 10 s wait ran out otherwise
  CHECK(f.run(f.client.range("/rmq/w/leader"))->empty());
}

TEST_CASE("etcd client: etcd's own errors are answers: not retried elsewhere, kEtcdRejected") {
  OneEtcd f;
  // An empty key is refused by etcd (gRPC InvalidArgument "key is not provided" -> HTTP 400).
  auto r = f.run(f.client.put("", "x"));
  REQUIRE_FALSE(r);
  CHECK(r.error().code == kEtcdRejected);
  CHECK(r.error().message.find("key is not provided") != std::string::npos);
  CHECK(r.error().message.find(f.etcd.endpoint(0)) != std::string::npos);
}
