// Master/slave replication with real processes: a SYNC_MASTER (with the name server) and a
// `--role=slave` broker that learns the master's HA address from its registration answer.
// SYNC_MASTER outcomes (SLAVE_NOT_AVAILABLE without a slave, SEND_OK with one, FLUSH_SLAVE_TIMEOUT
// while it hangs), what the slave serves and refuses, its metadata sync and its resume after a
// restart. The bigger drills (2m-2s, kill -9 the master, byte-identical commit logs across file
// boundaries) are test/integration/repl_*.
#include <doctest/doctest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "broker_calls.h"
#include "client/request_headers.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "node_config.h"
#include "test_client.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

struct HaPair {
  NodeProcess master;  // --role=namesrv,master, SYNC_MASTER
  NodeProcess slave;   // --role=slave, brokerId 1
  uint16_t nsPort = freePort();
  uint16_t masterPort = freeBrokerPort();
  uint16_t haPort = freePort();
  uint16_t slavePort = freeBrokerPort();

  // extraMaster: more [store] lines for the master (e.g. its flushDiskType).
  explicit HaPair(const std::string& extraMaster = "") {
    master.writeFile("node.toml",
                     namesrvToml(master, nsPort) +
                         brokerToml(master, {.port = masterPort, .name = "broker-ha", .role = "SYNC_MASTER",
                                             .commitLogFileSize = 4 << 20,
                                             .extraStore = "syncFlushTimeout = 1500\nhaListenPort = " +
                                                           std::to_string(haPort) + "\n" + extraMaster}));
    master.setArgs({"--role=namesrv,master", "-c", master.path("node.toml")});
    master.waitForPorts({nsPort, masterPort, haPort});
    slave.writeFile("node.toml", slaveToml(1));
    slave.setArgs({"--role=slave", "-c", slave.path("node.toml")});
    slave.waitForPorts({slavePort});
  }

  std::string slaveToml(int brokerId, std::string namesrvAddr = "", std::string extraStore = "") const {
    if (namesrvAddr.empty()) namesrvAddr = "127.0.0.1:" + std::to_string(nsPort);
    return logDirToml(slave) + brokerToml(slave, {.port = slavePort, .namesrvAddr = namesrvAddr, .name = "broker-ha",
                                                  .id = brokerId, .role = "SLAVE", .commitLogFileSize = 4 << 20,
                                                  .extraStore = extraStore});
  }
  std::string masterAddr() const { return "127.0.0.1:" + std::to_string(masterPort); }
  std::string slaveAddr() const { return "127.0.0.1:" + std::to_string(slavePort); }
};

// SIGSTOP takes effect asynchronously: the thread that takes the signal has to run to start the
// group stop, and until then the others (the HA thread) keep going. True once every thread of
// `pid` is stopped (state T in /proc/<pid>/task/*/stat).
bool allThreadsStopped(pid_t pid) {
  std::error_code ec;
  for (auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto close = stat.rfind(')');  // "pid (comm) S ...": the state follows the command name
    if (close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] != 'T') return false;
  }
  return !ec;
}

std::string tail(const std::string& text, size_t bytes = 3000) {
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

bool startNode(NodeProcess& p) {
  if (p.start(20s)) return true;
  MESSAGE("rmqnode did not start:\n" << p.stdoutText() << "\n" << p.stderrText());
  return false;
}

std::string runtimeValue(TestClient& c, const std::string& addr, const char* key) {
  return brokerRuntimeValue(c, addr, key).value_or("");
}

// Starts the master, then the slave, and waits until the master counts the slave's connection.
bool startFollowing(HaPair& ha, TestClient& c) {
  if (!startNode(ha.master) || !startNode(ha.slave)) return false;
  return eventually([&] { return runtimeValue(c, ha.masterAddr(), "haConnectionCount") == "1"; }, 30s);
}

// Waits (bounded) until the slave's commit log ends where the master's does.
bool sameCommitLogEnd(TestClient& c, const HaPair& ha) {
  return eventually([&] {
    auto slaveEnd = runtimeValue(c, ha.slaveAddr(), "commitLogMaxOffset");
    return !slaveEnd.empty() && slaveEnd == runtimeValue(c, ha.masterAddr(), "commitLogMaxOffset");
  }, 10s);
}

int sendsToHaT = 0;  // every answered send stored one message (SLAVE_NOT_AVAILABLE and FLUSH_SLAVE_TIMEOUT too)

int sendCode(TestClient& c, const std::string& addr, const std::string& body) {
  auto r = c.call(addr, sendRequest({.topic = "HaT", .body = body}), 10s);
  if (r.ok() && r->code != ResponseCode::SERVICE_NOT_AVAILABLE) ++sendsToHaT;
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return r->code;
}

// Pulls queue HaT/0 of `addr` from offset 0 until `count` messages arrived (bounded).
std::vector<MessageExt> pullUpTo(TestClient& c, const std::string& addr, size_t count) {
  std::vector<MessageExt> got;
  eventually(
      [&] {
        auto r = c.call(addr, pullRequest({.group = "hg", .topic = "HaT", .offset = static_cast<int64_t>(got.size())}));
        if (!r.ok()) return false;
        if (r->code == ResponseCode::SUCCESS)
          for (auto& m : pulledMessages(*r)) got.push_back(std::move(m));
        return got.size() >= count;
      },
      30s);
  return got;
}

}  // namespace

TEST_CASE("HA: --role=slave without a brokerId > 0 refuses to start with a clear error") {
  HaPair ha;
  ha.slave.writeFile("node.toml", ha.slaveToml(0));
  auto r = ha.slave.run({"--role=slave", "-c", ha.slave.path("node.toml")});
  CHECK(r.exitCode != 0);
  CHECK_MESSAGE(r.err.find("brokerId must be > 0") != std::string::npos, r.err);
}

TEST_CASE("HA: SYNC_MASTER answers SLAVE_NOT_AVAILABLE, SEND_OK and FLUSH_SLAVE_TIMEOUT; the slave serves and refuses") {
  HaPair ha;
  REQUIRE(startNode(ha.master));
  TestClient c;
  sendsToHaT = 0;
  const auto m = ha.masterAddr();
  const auto s = ha.slaveAddr();

  // No slave: stored, but the send says so (Java's SLAVE_NOT_AVAILABLE).
  for (int i = 0; i < 3; ++i) CHECK(sendCode(c, m, "early" + std::to_string(i)) == ResponseCode::SLAVE_NOT_AVAILABLE);
  REQUIRE(invoke(c, m, client::makeUpdateConsumerOffset("hg", "HaT", 0, 2)).code == 0);

  REQUIRE(startNode(ha.slave));
  REQUIRE_MESSAGE(eventually([&] { return runtimeValue(c, m, "haConnectionCount") == "1"; }, 30s), ha.master.log("broker.log"));
  constexpr int N = 40;
  for (int i = 0; i < N; ++i) REQUIRE(sendCode(c, m, "m" + std::to_string(i)) == ResponseCode::SUCCESS);

  // The slave has everything, builds its consume queue and serves pulls (suggesting the master).
  auto pulled = pullUpTo(c, s, 3 + N);
  REQUIRE(pulled.size() == 3 + N);
  CHECK(pulled[0].body == "early0");
  CHECK(pulled[3].body == "m0");
  CHECK(pulled[3 + N - 1].body == "m39");
  auto p = invoke(c, s, pullRequest({.group = "hg", .topic = "HaT", .offset = 0}));
  CHECK(extInt(p, "suggestWhichBrokerId") == 0);
  CHECK(sameCommitLogEnd(c, ha));
  CHECK(runtimeValue(c, s, "haConnected") == "true");
  CHECK(runtimeValue(c, s, "haMasterAddress") == "127.0.0.1:" + std::to_string(ha.haPort));
  auto view = invoke(c, s, request(RequestCode::VIEW_MESSAGE_BY_ID, {{"offset", "0"}}));
  CHECK(view.code == ResponseCode::SUCCESS);

  // The slave is in the topic's route under its brokerId, next to the master (id 0).
  std::string route;
  CHECK_MESSAGE(eventually([&] {
    auto r = c.call("127.0.0.1:" + std::to_string(ha.nsPort), client::makeRouteRequest("HaT"));
    if (!r.ok() || r->code != 0) return false;
    route = bodyOf(*r);
    return route.find("\"" + s + "\"") != std::string::npos && route.find("\"" + m + "\"") != std::string::npos;
  }, 10s), route);

  // Metadata sync at start: the offset committed on the master before the slave existed.
  CHECK(eventually([&] {
    auto q = c.call(s, client::makeQueryConsumerOffset("hg", "HaT", 0));
    return q.ok() && q->code == 0 && extInt(*q, "offset") == 2;
  }, 20s));

  // What a slave refuses: sends (SERVICE_NOT_AVAILABLE), topic changes (SYSTEM_ERROR); an offset
  // beyond its data is "retry" (at the master), never an offset correction.
  auto refused = invoke(c, s, sendRequest({.topic = "HaT", .body = "x"}));
  CHECK(refused.code == ResponseCode::SERVICE_NOT_AVAILABLE);
  CHECK_MESSAGE(refused.remark.value_or("").find("slave") != std::string::npos, refused.remark.value_or(""));
  CHECK(invoke(c, s, createTopicRequest("HaNew", 1)).code == ResponseCode::SYSTEM_ERROR);
  auto far = invoke(c, s, pullRequest({.group = "hg", .topic = "HaT", .offset = 1000}));
  CHECK(far.code == ResponseCode::PULL_RETRY_IMMEDIATELY);

  // A hanging slave (SIGSTOP): the master waits syncFlushTimeout, then FLUSH_SLAVE_TIMEOUT;
  // SEND_OK again once it runs (it acks everything it had not acked).
  REQUIRE(::kill(ha.slave.pid(), SIGSTOP) == 0);
  REQUIRE(eventually([&] { return allThreadsStopped(ha.slave.pid()); }, 10s));
  std::string before = runtimeValue(c, m, "haSlaves") + " end " + runtimeValue(c, m, "commitLogMaxOffset");
  CHECK_MESSAGE(sendCode(c, m, "hang") == ResponseCode::FLUSH_SLAVE_TIMEOUT,
                "before: " << before << " after: " << runtimeValue(c, m, "haSlaves") << " end "
                           << runtimeValue(c, m, "commitLogMaxOffset") << "\n"
                           << tail(ha.master.log("broker.log")) << "\n--- slave ---\n" << tail(ha.slave.log("broker.log")));
  REQUIRE(::kill(ha.slave.pid(), SIGCONT) == 0);
  CHECK(eventually([&] { return sendCode(c, m, "resumed") == ResponseCode::SUCCESS; }, 30s));

  // A dead slave: SLAVE_NOT_AVAILABLE as soon as the master sees the connection gone; a restarted
  // slave resumes from its own end (nothing twice) and SEND_OK returns by itself.
  ha.slave.kill();
  CHECK(eventually([&] { return sendCode(c, m, "dead") == ResponseCode::SLAVE_NOT_AVAILABLE; }, 30s));
  REQUIRE(ha.slave.restart(20s));
  CHECK(eventually([&] { return sendCode(c, m, "back") == ResponseCode::SUCCESS; }, 30s));
  auto qmax = [&](const std::string& addr) {
    auto r = c.call(addr, client::makeQueueOffsetRequest(RequestCode::GET_MAX_OFFSET, "HaT", 0));
    return r.ok() && r->code == 0 ? extInt(*r, "offset") : -1;
  };
  const int64_t total = sendsToHaT;  // the master's queue is built asynchronously: count, do not ask
  CHECK(total > 3 + N);
  CHECK(eventually([&] { return qmax(m) == total; }, 20s));
  CHECK_MESSAGE(eventually([&] { return qmax(s) == total; }, 20s),
                "slave queue max " << qmax(s) << " master " << total << " slave log:\n" << tail(ha.slave.log("broker.log"), 6000)
                                   << "\n--- master ---\n" << tail(ha.master.log("broker.log")));
  auto all = pullUpTo(c, s, static_cast<size_t>(total));
  CHECK(all.size() == static_cast<size_t>(total));
  CHECK(all.back().body == "back");
  CHECK(sameCommitLogEnd(c, ha));
}

TEST_CASE("HA: SYNC_FLUSH + SYNC_MASTER: SEND_OK when flushed and acked, FLUSH_SLAVE_TIMEOUT with a hanging slave") {
  HaPair ha("flushDiskType = \"SYNC_FLUSH\"");
  TestClient c;
  REQUIRE(startFollowing(ha, c));
  REQUIRE(ha.master.log("broker.log").find(", SYNC_FLUSH)") != std::string::npos);  // "store started at ..."
  const auto m = ha.masterAddr();
  for (int i = 0; i < 5; ++i) REQUIRE(sendCode(c, m, "both" + std::to_string(i)) == ResponseCode::SUCCESS);
  // The flush succeeds, the slave never acks: the two waits ran side by side and the slave's
  // status is the answer (Java's thenCombine: replication wins).
  REQUIRE(::kill(ha.slave.pid(), SIGSTOP) == 0);
  REQUIRE(eventually([&] { return allThreadsStopped(ha.slave.pid()); }, 10s));
  CHECK_MESSAGE(sendCode(c, m, "hang") == ResponseCode::FLUSH_SLAVE_TIMEOUT, tail(ha.master.log("broker.log")));
  REQUIRE(::kill(ha.slave.pid(), SIGCONT) == 0);
  CHECK(eventually([&] { return sendCode(c, m, "resumed") == ResponseCode::SUCCESS; }, 30s));
  CHECK(sameCommitLogEnd(c, ha));
}

TEST_CASE("HA: the slave takes topics and consumer offsets created later on its master at the next sync round") {
  HaPair ha;
  TestClient c;
  REQUIRE(startFollowing(ha, c));
  const auto m = ha.masterAddr();
  const auto s = ha.slaveAddr();
  REQUIRE(eventually([&] { return runtimeValue(c, s, "masterAddr") == m; }, 30s));  // first round done or under way

  createTopic(c, m, "HaLate", 2);
  REQUIRE(invoke(c, m, client::makeUpdateConsumerOffset("lateGroup", "HaLate", 1, 17)).code == 0);
  // Java's SlaveSynchronize runs every 10 s: allow two rounds on a loaded machine.
  CHECK(eventually([&] {
    auto t = c.call(s, request(RequestCode::GET_ALL_TOPIC_CONFIG, {}));
    return t.ok() && t->code == 0 && bodyOf(*t).find("\"HaLate\"") != std::string::npos;
  }, 25s));
  CHECK(eventually([&] {
    auto q = c.call(s, client::makeQueryConsumerOffset("lateGroup", "HaLate", 1));
    return q.ok() && q->code == 0 && extInt(*q, "offset") == 17;
  }, 25s));
  // A slave-side commit is kept locally until the master's next round overwrites that entry.
  REQUIRE(invoke(c, s, client::makeUpdateConsumerOffset("lateGroup", "HaLate", 1, 5)).code == 0);
  CHECK(extInt(invoke(c, s, client::makeQueryConsumerOffset("lateGroup", "HaLate", 1)), "offset") == 5);
  CHECK(eventually([&] {
    auto q = c.call(s, client::makeQueryConsumerOffset("lateGroup", "HaLate", 1));
    return q.ok() && q->code == 0 && extInt(*q, "offset") == 17;
  }, 25s));

  // Graceful stops with replication running: the slave first, then the master (as cluster.sh).
  CHECK(ha.slave.stop() == 0);
  CHECK(ha.master.stop() == 0);
  CHECK(ha.slave.readFile("store/config/consumerOffset.json").find("HaLate@lateGroup") != std::string::npos);
}

TEST_CASE("HA: a slave with haMasterAddress follows that master without any name server") {
  HaPair ha;
  const uint16_t deadNs = freePort();  // nothing listens there: no registration answer to learn from
  ha.slave.writeFile("node.toml", ha.slaveToml(2, "127.0.0.1:" + std::to_string(deadNs),
                                               "haMasterAddress = \"127.0.0.1:" + std::to_string(ha.haPort) + "\""));
  TestClient c;
  REQUIRE(startFollowing(ha, c));
  const auto m = ha.masterAddr();
  const auto s = ha.slaveAddr();
  for (int i = 0; i < 10; ++i) CHECK(sendCode(c, m, "fixed" + std::to_string(i)) == ResponseCode::SUCCESS);
  CHECK(runtimeValue(c, s, "haMasterAddress") == "127.0.0.1:" + std::to_string(ha.haPort));
  CHECK(runtimeValue(c, s, "masterAddr").empty());  // no metadata sync without a registration answer
  CHECK(sameCommitLogEnd(c, ha));
}
