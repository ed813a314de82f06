// Failover mode of the HA stream (failoverEnable): the epoch handshake and acknowledgements through
// the in-sync set (repl/replica_set.h). A master and a slave store in one process over loopback.
#include "unit/repl/ha_test_util.h"

#include "repl/replica_set.h"

using namespace rmq::repl;
using namespace rmq::repl::test;
using namespace std::chrono_literals;

namespace {

// A failover master: store (SYNC_MASTER, acks by the in-sync set) + ReplicaSet + HaMaster.
struct FailoverMaster {
  TempDir dir;
  StoreConfig cfg;
  MessageStore store;
  ReplicaSet replicas;
  HaMaster ha;
  FailoverMaster() : cfg(config(dir.path)), store(cfg, testStoreHost()), replicas(store), ha(store, cfg, &replicas) {}
  static StoreConfig config(const std::string& path) {
    auto c = masterConfig(path, "SYNC_MASTER");
    c.syncFlushTimeout = 1000;
    return c;
  }
  void start(int64_t epoch, std::vector<int64_t> inSync) {
    REQUIRE(store.open().ok());
    store.setInSyncSetAcks(true);
    REQUIRE(ha.start("127.0.0.1", 0).ok());
    store.start();
    replicas.begin(epoch, store.maxPhyOffset(), std::move(inSync));
  }
  ~FailoverMaster() {
    ha.stop();
    store.shutdown();
  }
};

struct FailoverSlave : Slave {
  FailoverSlave(const std::string& dir, uint16_t port, int64_t id, int64_t epoch) : Slave(dir, port), id(id), epoch(epoch) {}
  void startFollowing() {
    store = std::make_unique<MessageStore>(cfg, testStoreHost());
    REQUIRE(store->open().ok());
    store->start();
    client = std::make_unique<HaClient>(*store, cfg);
    client->enableEpochHandshake(id);
    client->follow(cfg.haMasterAddress, epoch);
    client->start();
  }
  int64_t id, epoch;
};

bool slaveConnected(const ReplicaSet& r, int64_t id) {
  for (auto& x : r.replicas())
    if (x.id == id && x.connected) return true;
  return false;
}

}  // namespace

TEST_CASE("failover HA: the handshake names the slave; a slave refuses a master of a lower epoch; a master hears a higher one") {
  FailoverMaster m;
  m.start(2, {});
  appendN(m.store, 0, 20);
  // A new mastership with an empty in-sync set acknowledges at once (nothing to wait for).
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::PUT_OK));

  SUBCASE("same epoch: the slave follows and its acks are counted under its brokerId") {
    TempDir sd;
    FailoverSlave s(sd.path, m.ha.port(), 7, 2);
    s.startFollowing();
    REQUIRE(waitUntil([&] { return caughtUp(m.store, *s.store); }));
    CHECK(s.client->masterEpoch() == 2);
    REQUIRE(waitUntil([&] { return slaveConnected(m.replicas, 7); }));
    REQUIRE(waitUntil([&] {
      for (auto& r : m.replicas.replicas())
        if (r.id == 7 && r.ack == m.store.maxPhyOffset()) return true;
      return false;
    }));
    checkSameBytes(m.store, *s.store, 0);
  }
  SUBCASE("the slave follows epoch 3: it refuses the epoch-2 master and appends nothing; the master learns it is stale") {
    TempDir sd;
    FailoverSlave s(sd.path, m.ha.port(), 7, 3);
    s.startFollowing();
    REQUIRE(waitUntil([&] { return m.replicas.highestEpochHeard() == 3; }));
    CHECK(s.store->maxPhyOffset() == 0);
    CHECK_FALSE(slaveConnected(m.replicas, 7));
  }
}

TEST_CASE("failover HA: a SYNC_MASTER send waits for every in-sync slave; shrinking the set releases it; an empty set acks at once") {
  FailoverMaster m;
  m.start(1, {7});
  TempDir sd;
  FailoverSlave s(sd.path, m.ha.port(), 7, 1);
  s.startFollowing();
  appendN(m.store, 0, 5);
  // The in-sync slave acks: PUT_OK.
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::PUT_OK));

  // A second member (id 9) that is not connected: sends wait; no SLAVE_NOT_AVAILABLE (4.x would
  // answer it for a missing slave), the timeout is FLUSH_SLAVE_TIMEOUT.
  m.replicas.setInSync({7, 9});
  appendN(m.store, 5, 1);
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::FLUSH_SLAVE_TIMEOUT));

  // A waiting send is released when the set shrinks to the members that have it.
  appendN(m.store, 6, 1);
  auto waiting = m.store.asyncWaitReplicated(m.store.maxPhyOffset(), asio::use_future);
  CHECK(waiting.wait_for(100ms) == std::future_status::timeout);
  m.replicas.setInSync({7});
  REQUIRE(waiting.wait_for(10s) == std::future_status::ready);
  CHECK((waiting.get() == PutStatus::PUT_OK));

  // The slave stopped: sends wait for it until the set is empty, then complete.
  s.stop();
  appendN(m.store, 7, 1);
  auto pending = m.store.asyncWaitReplicated(m.store.maxPhyOffset(), asio::use_future);
  CHECK(pending.wait_for(100ms) == std::future_status::timeout);
  m.replicas.setInSync({});
  REQUIRE(pending.wait_for(10s) == std::future_status::ready);
  CHECK((pending.get() == PutStatus::PUT_OK));
  appendN(m.store, 8, 1);
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::PUT_OK));
}
