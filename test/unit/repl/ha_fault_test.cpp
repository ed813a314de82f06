// The HA fault points (common/fault_point.h) between a real master and slave over loopback:
// ha_drop breaks the link, ha_delay slows every frame. A SYNC_MASTER send never gets PUT_OK for
// bytes the slave does not have; once disarmed the slave resumes exactly at its own end and
// its commit log is byte-identical to the master's.
#include <doctest/doctest.h>

#include "common/fault_point.h"
#include "unit/repl/ha_test_util.h"

using namespace rmq;
using namespace rmq::repl::test;
using rmq::fault::Point;

namespace {
void syncMaster(StoreConfig& c) {
  c.brokerRole = "SYNC_MASTER";
  c.syncFlushTimeout = 500;
}

uint16_t startedHaPort(Master& m) {
  m.start();
  return m.ha.port();
}

// A SYNC_MASTER and its slave, connected, with messages 0..n-1 sent and replicated (PUT_OK).
struct ReplicatingPair {
  explicit ReplicatingPair(int n) {
    s.start();
    REQUIRE(waitUntil([&] { return m.ha.connectionCount() == 1; }));
    appendN(m.store, 0, n);
    REQUIRE((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::PUT_OK));
  }
  Master m{syncMaster};
  TempDir sdir;
  Slave s{sdir.path, startedHaPort(m)};
};
}  // namespace

TEST_CASE("fault ha_drop: SYNC_MASTER sends get FLUSH_SLAVE_TIMEOUT or SLAVE_NOT_AVAILABLE, never PUT_OK; "
          "disarmed, the slave reconnects, resumes at its own end, and holds every byte") {
  ReplicatingPair pair(20);
  Master& m = pair.m;
  Slave& s = pair.s;
  int64_t slaveEnd = s.store->maxPhyOffset();
  {
    fault::ScopedArm drop(Point::HaDrop);
    for (int i = 20; i < 30; ++i) {
      appendN(m.store, i, 1);
      PutStatus st = waitReplicated(m.store, m.store.maxPhyOffset());
      CHECK_MESSAGE((st == PutStatus::FLUSH_SLAVE_TIMEOUT || st == PutStatus::SLAVE_NOT_AVAILABLE), toString(st));
    }
    CHECK(s.store->maxPhyOffset() == slaveEnd);  // not one frame got through
  }
  appendN(m.store, 30, 1);
  // The slave reconnects (backoff up to 5 s) and reports its end: the master resumes there.
  REQUIRE(waitUntil([&] { return caughtUp(m.store, *s.store); }));
  auto slaves = m.ha.slaves();
  REQUIRE(slaves.size() == 1);
  CHECK(slaves[0].requestOffset == slaveEnd);
  checkSameBytes(m.store, *s.store, 0);
  appendN(m.store, 31, 1);
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::PUT_OK));
}

TEST_CASE("fault ha_delay: a link slower than syncFlushTimeout answers FLUSH_SLAVE_TIMEOUT; the slave still "
          "receives everything; disarmed, sends are PUT_OK again") {
  ReplicatingPair pair(5);
  Master& m = pair.m;
  Slave& s = pair.s;
  {
    fault::ScopedArm delay(Point::HaDelay, 1500);
    appendN(m.store, 5, 3);
    CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::FLUSH_SLAVE_TIMEOUT));
  }
  // Late but complete: the delayed frames arrive, nothing is skipped or repeated.
  REQUIRE(waitUntil([&] { return caughtUp(m.store, *s.store); }));
  checkSameBytes(m.store, *s.store, 0);
  appendN(m.store, 8, 1);
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::PUT_OK));
}

TEST_CASE("fault publish_delay: HA ships only published bytes; the slave never gets ahead of the master's end, "
          "keeps its connection, and the send is PUT_OK once published") {
  ReplicatingPair pair(5);
  Master& m = pair.m;
  Slave& s = pair.s;
  const int64_t published = m.store.maxPhyOffset();
  std::atomic<bool> appended{false};
  std::thread appender;
  {
    // 600 ms between the write position and the publication: the writer's 200 ms heartbeat
    // wake-ups read the log meanwhile, as a wake-up from an earlier append would.
    fault::ScopedArm delay(Point::PublishDelay, 600);
    appender = std::thread([&] {
      appendN(m.store, 5, 1);
      appended = true;
    });
    bool slaveAhead = false;
    for (int i = 0; i < 100 && !appended; ++i) {
      if (s.store->maxPhyOffset() > m.store.maxPhyOffset()) slaveAhead = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    CHECK_FALSE(slaveAhead);
    CHECK(s.store->maxPhyOffset() == published);
    appender.join();
  }
  CHECK(m.store.maxPhyOffset() > published);
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::PUT_OK));
  CHECK(m.ha.connectionCount() == 1);
  auto slaves = m.ha.slaves();
  REQUIRE(slaves.size() == 1);
  CHECK(slaves[0].requestOffset == 0);  // still the first connection: it never reconnected
  checkSameBytes(m.store, *s.store, 0);
}
