// Automatic failover with real processes (issue 19): etcd, a name server and one broker group with
// failoverEnable. Faults: kill -9 of the master under SYNC_MASTER load; SIGSTOP of the master; the
// old master restarted (it rejoins as a slave, its commit log identical to the new master's).
#include <doctest/doctest.h>
#include <signal.h>

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "broker_calls.h"
#include "broker_requests.h"
#include "common/response_code.h"
#include "failover_cluster.h"
#include "repl_cluster.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Sends numbered bodies to whatever the name server lists as the group's master (refreshing the
// route after any failure, as a client that refreshes on failure does), recording every SEND_OK.
struct Sender {
  FailoverCluster& c;
  std::string topic;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> okCount{0};
  std::mutex mu;
  std::vector<std::string> acked;                   // bodies answered SEND_OK
  std::vector<std::pair<Clock::time_point, std::string>> okAt;  // (when, which broker)
  std::thread thread;

  Sender(FailoverCluster& cluster, std::string t) : c(cluster), topic(std::move(t)) {
    thread = std::thread([this] { run(); });
  }
  ~Sender() { finish(); }
  void finish() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
  void run() {
    TestClient client;
    std::string target;
    for (int i = 0; !stop && i < 200000; ++i) {
      if (target.empty()) {
        auto m = c.routeMaster(topic);
        if (!m) {
          std::this_thread::sleep_for(20ms);
          continue;
        }
        target = *m;
      }
      std::string body = "f-" + std::to_string(i);
      auto r = client.call(target, sendRequest({.topic = topic, .body = body}), 3s);
      if (r.ok() && r->code == ResponseCode::SUCCESS) {
        std::lock_guard lock(mu);
        acked.push_back(body);
        okAt.emplace_back(Clock::now(), target);
        ++okCount;
        continue;
      }
      target.clear();  // connection error, SERVICE_NOT_AVAILABLE, timeouts: ask the name server again
      std::this_thread::sleep_for(20ms);
    }
  }
  std::optional<Clock::time_point> firstOkAfter(Clock::time_point t, const std::string& broker) {
    std::lock_guard lock(mu);
    for (auto& [when, who] : okAt)
      if (when >= t && who == broker) return when;
    return std::nullopt;
  }
};

// Every body of `topic` stored on the broker at `addr` (all queues, from offset 0).
std::set<std::string> storedBodies(FailoverCluster& c, const std::string& addr, const std::string& topic) {
  std::set<std::string> out;
  for (int q = 0; q < 4; ++q) {
    int64_t offset = 0;
    for (int round = 0; round < 1000; ++round) {
      auto msgs = pullMessages(c.client, addr, {.group = "fo-check", .topic = topic, .queueId = q, .offset = offset});
      if (msgs.empty()) break;
      for (auto& m : msgs) out.insert(m.body);
      offset += static_cast<int64_t>(msgs.size());
    }
  }
  return out;
}

bool waitOks(Sender& s, int64_t atLeast, std::chrono::milliseconds timeout) {
  return eventually([&] { return s.okCount.load() >= atLeast; }, timeout);
}

}  // namespace

TEST_CASE("failover: kill -9 of a SYNC_MASTER under load; the in-sync slave takes over, no SEND_OK lost; the old master rejoins as a slave with an identical commit log") {
  FailoverCluster c({.mode = "SYNC_MASTER"});
  REQUIRE(c.startAll("FoT"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  CHECK(c.routeMaster("FoT") == std::optional<std::string>(c.addr(1)));

  Sender sender(c, "FoT");
  REQUIRE(waitOks(sender, 300, 30s));
  auto killedAt = Clock::now();
  c.broker(1).kill();
  REQUIRE(c.waitMaster(2, 15s));
  REQUIRE(eventually([&] { return sender.firstOkAfter(killedAt, c.addr(2)).has_value(); }, 15s));
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(*sender.firstOkAfter(killedAt, c.addr(2)) - killedAt);
  MESSAGE("kill -9 -> first SEND_OK on the new master: " << took.count() << " ms");
  CHECK(c.routeMaster("FoT") == std::optional<std::string>(c.addr(2)));
  CHECK(c.runtimeValue(c.addr(2), "failoverEpoch") == std::optional<std::string>("2"));
  int64_t before = sender.okCount;
  REQUIRE(waitOks(sender, before + 200, 30s));

  // The old master comes back: it follows broker 2 and catches up.
  REQUIRE(c.broker(1).restart(30s));
  REQUIRE(c.waitInSync(2, 1, 30s));
  before = sender.okCount;
  REQUIRE(waitOks(sender, before + 200, 30s));
  sender.finish();

  auto onNew = storedBodies(c, c.addr(2), "FoT");
  size_t lost = 0;
  for (auto& b : sender.acked) lost += onNew.count(b) == 0;
  MESSAGE(sender.acked.size() << " SEND_OK, " << lost << " of them missing on the new master");
  CHECK(lost == 0);

  REQUIRE(eventually([&] { return c.maxPhyOffset(1) == c.maxPhyOffset(2); }, 30s));
  CHECK(c.runtimeValue(c.addr(1), "failoverRole") == std::optional<std::string>("slave"));
  auto end = *c.maxPhyOffset(2);
  std::string diff = readCommitLog(c.broker(1).path("store/commitlog"), 64 << 20, 0, end) ==
                             readCommitLog(c.broker(2).path("store/commitlog"), 64 << 20, 0, end)
                         ? ""
                         : "commit logs differ";
  CHECK(diff.empty());
}

TEST_CASE("failover: a master frozen (SIGSTOP) is replaced; after SIGCONT it acknowledges no send and follows the new master") {
  FailoverCluster c({.mode = "SYNC_MASTER"});
  REQUIRE(c.startAll("FoS"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  Sender sender(c, "FoS");
  REQUIRE(waitOks(sender, 200, 30s));

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

  auto onNew = storedBodies(c, c.addr(2), "FoS");
  size_t lost = 0;
  for (auto& b : sender.acked) lost += onNew.count(b) == 0;
  CHECK(lost == 0);
  for (int i = 0; i < 20; ++i) CHECK(onNew.count("stale-" + std::to_string(i)) == 0);
}

TEST_CASE("failover: a planned switchover (rmqadmin failoverSwitch) under ASYNC_MASTER load loses no SEND_OK; failoverStatus shows the new master") {
  FailoverCluster c({.mode = "ASYNC_MASTER"});
  REQUIRE(c.startAll("FoW"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  Sender sender(c, "FoW");
  REQUIRE(waitOks(sender, 300, 30s));

  auto r = tools::runTool(RMQADMIN_BIN, {"failoverSwitch", "-n", c.namesrvAddr(), "-b", "broker-f", "-i", "2"});
  INFO(r.out << r.err);
  REQUIRE(r.exitCode == 0);
  CHECK(r.out.find("switchover of broker-f") != std::string::npos);
  REQUIRE(c.waitMaster(2, 15s));
  CHECK(c.runtimeValue(c.addr(2), "failoverEpoch") == std::optional<std::string>("2"));
  REQUIRE(eventually([&] { return c.runtimeValue(c.addr(1), "failoverRole") == std::optional<std::string>("slave"); }, 15s));
  int64_t before = sender.okCount;
  REQUIRE(waitOks(sender, before + 200, 30s));
  REQUIRE(c.waitInSync(2, 1, 30s));
  sender.finish();

  auto onNew = storedBodies(c, c.addr(2), "FoW");
  size_t lost = 0;
  for (auto& b : sender.acked) lost += onNew.count(b) == 0;
  MESSAGE(sender.acked.size() << " SEND_OK around the switchover, " << lost << " missing on the new master");
  CHECK(lost == 0);

  auto status = tools::runTool(RMQADMIN_BIN, {"failoverStatus", "-n", c.namesrvAddr(), "-b", "broker-f"});
  INFO(status.out << status.err);
  REQUIRE(status.exitCode == 0);
  CHECK(status.out.find(c.addr(2) + "  master  2") != std::string::npos);
  CHECK(status.out.find(c.addr(1) + "  slave   2") != std::string::npos);
}
