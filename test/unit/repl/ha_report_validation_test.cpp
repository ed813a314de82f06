// A peer on the master's HA port whose reports are no offset a slave can have: negative, or
// beyond the master's commit log end, as its first report or a later one. The master closes that
// connection without taking the report as an ack (Java 4.9.8's ReadSocketService checks only later
// reports against the end: a first report beyond it would ack every SYNC_MASTER send up to there,
// a negative one leaves the writer streaming from nowhere), and keeps serving its real slave and
// SYNC_MASTER sends meanwhile.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include "unit/repl/ha_test_util.h"

using namespace rmq;
using namespace rmq::repl::test;
using asio::ip::tcp;
using std::chrono::milliseconds;

namespace {

// A report's value: `value` itself, or (pastEnd) that many bytes beyond the master's end when sent.
struct Report {
  int64_t value;
  bool pastEnd = false;
  int64_t resolve(const MessageStore& master) const { return pastEnd ? master.maxPhyOffset() + value : value; }
};

struct BadReport {
  std::string what;
  Report first;                       // the peer's first report
  std::optional<Report> later;        // then this one, when set
};

tcp::socket connectTo(asio::io_context& io, uint16_t port) {
  tcp::socket s(io);
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  return s;
}

}  // namespace

TEST_CASE("master: a negative or beyond-the-end HA report closes that connection unacked; its slave and SYNC_MASTER sends go on") {
  Master m([](StoreConfig& c) {
    c.brokerRole = "SYNC_MASTER";
    c.haSendHeartbeatInterval = 100;
    c.haHousekeepingInterval = 60000;  // a closed connection below is the refusal, not silence
  });
  m.start();
  appendN(m.store, 0, 5);
  TempDir sdir;
  Slave s(sdir.path, m.ha.port());
  s.start();
  REQUIRE(waitUntil([&] { return caughtUp(m.store, *s.store) && m.store.slaveAckedOffset() == m.store.maxPhyOffset(); }));

  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  const BadReport cases[] = {
      {"first report -1", {-1}, std::nullopt},
      {"first report negative", {-4096}, std::nullopt},
      {"first report INT64_MIN", {kMin}, std::nullopt},
      {"first report one byte beyond the end", {1, true}, std::nullopt},
      {"first report INT64_MAX", {kMax}, std::nullopt},
      {"a valid first report, then a negative one", {0}, Report{-8}},
      {"a valid first report, then one beyond the end", {0, true}, Report{1000, true}},
  };
  asio::io_context io;
  for (const auto& bad : cases) {
    CAPTURE(bad.what);
    const int64_t ackedBefore = m.store.slaveAckedOffset();
    auto peer = connectTo(io, m.ha.port());
    writeReport(peer, bad.first.resolve(m.store));
    if (bad.later) {
      CHECK(readLong(peer) >= 0);  // served from its valid first report: a frame's offset
      writeReport(peer, bad.later->resolve(m.store));
    }
    CHECK(closedWithin(peer, milliseconds(5000)));
    CHECK(m.store.slaveAckedOffset() == ackedBefore);  // never an ack
    // The real slave is still connected and followed; a SYNC_MASTER send completes PUT_OK.
    appendN(m.store, 100, 1);
    CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::PUT_OK));
    CHECK(waitUntil([&] { return m.ha.connectionCount() == 1; }));
  }
  CHECK(waitUntil([&] { return caughtUp(m.store, *s.store); }));
  checkSameBytes(m.store, *s.store, s.store->minPhyOffset());
}
