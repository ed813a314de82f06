// Replication drills with real processes (issue 8): a SYNC_MASTER and its slave; the master killed
// with -9 while the slave serves consumers; the slave killed / frozen under SYNC_MASTER.
#include <doctest/doctest.h>
#include <signal.h>

#include <set>
#include <thread>
#include <string>
#include <vector>

#include "client/request_headers.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "broker_calls.h"
#include "node_config.h"
#include "repl_cluster.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

// Pulls queue `queueId` of `topic` from `addr` starting at `offset` until `want` messages came back
// (or nothing more arrives); returns the bodies in order.
std::vector<std::string> pullAll(TestClient& c, const std::string& addr, const std::string& topic,
                                 int32_t queueId, int64_t offset, size_t want) {
  std::vector<std::string> bodies;
  for (int round = 0; round < 2000 && bodies.size() < want; ++round) {
    auto r = c.call(addr, pullRequest({.group = "drill-group", .topic = topic, .queueId = queueId, .offset = offset}));
    if (!r.ok()) break;
    if (r->code != ResponseCode::SUCCESS) {
      if (r->code == ResponseCode::PULL_NOT_FOUND || r->code == ResponseCode::PULL_RETRY_IMMEDIATELY) break;
      std::this_thread::sleep_for(100ms);  // e.g. topic not synced to the slave yet
      continue;
    }
    for (auto& m : pulledMessages(*r)) bodies.push_back(m.body);
    offset = extInt(*r, "nextBeginOffset");
  }
  return bodies;
}

int sendCode(TestClient& c, const std::string& addr, const std::string& topic, const std::string& body) {
  auto r = c.call(addr, sendRequest({.topic = topic, .body = body}), 15s);
  return r.ok() ? r->code : -1000;
}

}  // namespace

TEST_CASE("repl SYNC_MASTER: every send SEND_OK; after kill -9 of the master its slave serves all; the restarted master re-serves nothing") {
  ReplCluster c({.masterRole = "SYNC_MASTER"});
  REQUIRE(c.startAll("ReplT"));

  const int n = 300;
  // Once the master has the slave's first report, every send waits for its ack: none is stored
  // without replication (an earlier one would answer SLAVE_NOT_AVAILABLE and still be stored).
  REQUIRE(c.waitSlaveReported());
  for (int i = 0; i < n; ++i) {
    int code = sendCode(c.client, c.masterAddr(), "ReplT", "m-" + std::to_string(i));
    REQUIRE_MESSAGE(code == ResponseCode::SUCCESS, "send " << i << " answered " << code);
  }
  auto masterMax = c.maxPhyOffset(c.masterAddr());
  REQUIRE(masterMax);
  // SYNC_MASTER acknowledged every send after the slave had it: the slave is at the master's end now.
  auto slaveMax = c.maxPhyOffset(c.slaveAddr());
  REQUIRE(slaveMax);
  CHECK(*slaveMax == *masterMax);

  c.master.kill();  // SIGKILL

  // The ack covered the slave's commit log; its consume queue is built right after (dispatch).
  REQUIRE(dispatched(c.client, c.slaveAddr(), "ReplT", 0, n));
  auto fromSlave = pullAll(c.client, c.slaveAddr(), "ReplT", 0, 0, n);
  REQUIRE_MESSAGE(fromSlave.size() == static_cast<size_t>(n), "pulled " << fromSlave.size());
  std::set<std::string> unique(fromSlave.begin(), fromSlave.end());
  CHECK(unique.size() == static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) CHECK(fromSlave[i] == "m-" + std::to_string(i));
  // The consumer records its progress where it reads (the Java client commits to the slave when the master is gone).
  auto commitSlave = c.client.call(c.slaveAddr(), client::makeUpdateConsumerOffset("drill-group", "ReplT", 0, n));
  REQUIRE(commitSlave.ok());

  REQUIRE_MESSAGE(c.master.restart(30s), c.master.stderrText());
  // The Java client keeps its offsets in memory and commits them to the master once it is back (persistAll).
  REQUIRE(eventually(
      [&] {
        auto r = c.client.call(c.masterAddr(), client::makeUpdateConsumerOffset("drill-group", "ReplT", 0, n));
        return r.ok() && r->code == ResponseCode::SUCCESS;
      },
      30s));
  auto q = c.client.call(c.masterAddr(), client::makeQueryConsumerOffset("drill-group", "ReplT", 0));
  REQUIRE(q.ok());
  REQUIRE(q->code == ResponseCode::SUCCESS);
  int64_t resumeAt = extInt(*q, "offset");
  CHECK(resumeAt == n);
  // The restarted master kept every acknowledged message and serves new sends once its slave is back.
  REQUIRE(dispatched(c.client, c.masterAddr(), "ReplT", 0, n));
  // (Until the slave has reconnected, sends answer SLAVE_NOT_AVAILABLE but are stored, as in RocketMQ.)
  REQUIRE(eventually([&] { return sendCode(c.client, c.masterAddr(), "ReplT", "after-restart") == ResponseCode::SUCCESS; }, 60s));
  REQUIRE(dispatched(c.client, c.masterAddr(), "ReplT", 0, resumeAt + 1));  // SEND_OK precedes the dispatch
  auto again = pullAll(c.client, c.masterAddr(), "ReplT", 0, resumeAt, 1000);
  REQUIRE(!again.empty());
  for (auto& body : again) CHECK(body == "after-restart");  // only new messages: nothing re-consumed
}

namespace {

// Until the master's HA table shows no slave connection (it noticed the slave is gone).
bool masterHasNoSlave(ReplCluster& c) {
  return eventually([&] { return c.runtimeValue(c.masterAddr(), "haConnectionCount") == "0"; }, 30s);
}

// Until the slave has every byte of the master and the master holds its ack of them (haSlaves
// "addr@ack" with ack = the master's end): the state in which a SYNC_MASTER send is acked at once.
bool slaveCaughtUpAndAcked(ReplCluster& c) {
  return eventually(
      [&] {
        auto m = c.maxPhyOffset(c.masterAddr());
        auto s = c.maxPhyOffset(c.slaveAddr());
        auto slaves = c.runtimeValue(c.masterAddr(), "haSlaves");
        return m && s && *m == *s && slaves && slaves->ends_with("@" + std::to_string(*m));
      },
      60s);
}

// Recovery needs nothing but the slave being back: once it caught up, every send is SEND_OK
// again and what was stored while it was away reached it too.
void recoversByItself(ReplCluster& c) {
  REQUIRE(slaveCaughtUpAndAcked(c));
  for (int i = 0; i < 20; ++i) CHECK(sendCode(c.client, c.masterAddr(), "ReplK", "ok-" + std::to_string(i)) == ResponseCode::SUCCESS);
  auto m = c.maxPhyOffset(c.masterAddr());
  REQUIRE(m);
  CHECK(c.waitCaughtUp(*m));
}

}  // namespace

// Every step waits on what the brokers show (HA table, max offsets), never on a speed. Only two
// timeouts are part of the drill: a send to a frozen slave answers FLUSH_SLAVE_TIMEOUT after
// syncFlushTimeout, and a send to a caught-up slave must be acked within it (5 s: Java's default;
// 1.5 s was once too short on a loaded machine). The killed slave never needs a timeout to pass.
TEST_CASE("repl SYNC_MASTER: slave killed -> SLAVE_NOT_AVAILABLE, slave frozen -> FLUSH_SLAVE_TIMEOUT, both recover by themselves") {
  // A long housekeeping interval keeps the frozen slave's connection (else the master drops it and
  // answers SLAVE_NOT_AVAILABLE).
  ReplCluster c({.masterRole = "SYNC_MASTER", .extraStore = "syncFlushTimeout = 5000\nhaHousekeepingInterval = 120000\n"});
  REQUIRE(c.startAll("ReplK"));
  REQUIRE(c.waitSlaveReported());
  REQUIRE(slaveCaughtUpAndAcked(c));
  REQUIRE(sendCode(c.client, c.masterAddr(), "ReplK", "first") == ResponseCode::SUCCESS);

  SUBCASE("killed") {
    c.slave.kill();
    // The master notices the closed HA connection; from then on every send answers SLAVE_NOT_AVAILABLE.
    REQUIRE(masterHasNoSlave(c));
    CHECK(sendCode(c.client, c.masterAddr(), "ReplK", "x") == ResponseCode::SLAVE_NOT_AVAILABLE);
    CHECK(sendCode(c.client, c.masterAddr(), "ReplK", "y") == ResponseCode::SLAVE_NOT_AVAILABLE);
    REQUIRE_MESSAGE(c.slave.restart(30s), c.slave.stderrText());
  }
  SUBCASE("frozen") {
    REQUIRE(::kill(c.slave.pid(), SIGSTOP) == 0);
    // kill() returns before every thread has stopped (a thread inside a long system call stops when
    // it returns): wait until all of them are.
    REQUIRE(waitAllThreadsStopped(c.slave.pid(), 30s));
    // The connection stays open but no ack comes: the send waits syncFlushTimeout and times out.
    int code = sendCode(c.client, c.masterAddr(), "ReplK", "x");
    CHECK_MESSAGE(code == ResponseCode::FLUSH_SLAVE_TIMEOUT,
                  "answered " << code << "; master's slaves (address@ack): " << c.runtimeValue(c.masterAddr(), "haSlaves").value_or("?"));
    REQUIRE(::kill(c.slave.pid(), SIGCONT) == 0);
  }
  recoversByItself(c);
}
