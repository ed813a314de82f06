// Issue 21's crash drill in miniature (the full one is `scripts/drill.sh --pop`): two POP consumers
// (remoting POP_MESSAGE / ACK_MESSAGE, each on its own thread and connection) pop and ack 400
// messages while the broker is killed (-9) and restarted under them. Complements "pop: kill -9
// with messages in flight and acked" (pop_consume_test.cpp: a still broker, a fixed state at the
// kill): here the kill lands among pops and acks in progress.
#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "broker_calls.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "dev_node.h"
#include "pop_helpers.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

struct Delivery {
  std::string body;
  int32_t reconsumeTimes = 0;
  int64_t ms = 0;  // when the consumer had it
};

// What the consumers saw: every delivery, and when each message's ack was answered SUCCESS.
struct DrillLog {
  std::mutex mu;
  std::vector<Delivery> deliveries;
  std::map<std::string, int64_t> ackedAt;
  size_t acked() {
    std::lock_guard lk(mu);
    return ackedAt.size();
  }
};

// Pops batches of 8 (invisible 2 s), holds each 30 ms ("processing": a kill finds batches in
// flight), acks them one by one, except every 25th first delivery (it comes back after 2 s). A
// failed call (the broker is down) gets a fresh connection 50 ms later.
void consume(const std::string& addr, const std::string& group, const std::string& topic, std::atomic<bool>& stop,
             DrillLog& log) {
  auto client = std::make_unique<TestClient>();
  int firsts = 0;
  while (!stop.load()) {
    auto p = tryPop(*client, addr, {.group = group, .topic = topic, .maxNums = 8, .invisibleMs = 2000, .pollMs = 200});
    if (!p) {
      std::this_thread::sleep_for(50ms);
      client = std::make_unique<TestClient>();
      continue;
    }
    {
      std::lock_guard lk(log.mu);
      for (const auto& m : p->messages) log.deliveries.push_back({m.body, m.reconsumeTimes, nowMillis()});
    }
    if (p->messages.empty()) continue;
    std::this_thread::sleep_for(30ms);
    for (const auto& m : p->messages) {
      if (m.reconsumeTimes == 0 && ++firsts % 25 == 0) continue;
      if (tryAck(*client, addr, group, topic, m) != ResponseCode::SUCCESS) continue;
      std::lock_guard lk(log.mu);
      log.ackedAt.emplace(m.body, nowMillis());
    }
  }
}

}  // namespace

TEST_CASE("pop crash drill: consumers pop and ack while the broker is kill -9'd; all delivered, no acked one again") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  std::string addr = node.brokerAddr, t = uniqueName("PopDrill"), g = uniqueName("GID_drill");
  REQUIRE(node.createTopic(t, 4));
  const int n = 400;
  std::vector<SendSpec> sends;
  for (int i = 0; i < n; ++i) sends.push_back({.topic = t, .body = "d" + std::to_string(i), .queueId = i % 4});
  sendDispatched(c, addr, sends);
  // The topic must outlive the kill (topics.json is written shortly after the topic's creation).
  REQUIRE(eventually([&] { return node.proc.readFile("store/config/topics.json").find(t) != std::string::npos; }, 10s));

  DrillLog log;
  std::atomic<bool> stop{false};
  std::thread a([&] { consume(addr, g, t, stop, log); });
  std::thread b([&] { consume(addr, g, t, stop, log); });
  bool started = eventually([&] { return log.acked() >= 100; }, 10s);
  // A batch popped here and never acked: certainly in flight when the broker dies.
  auto held = tryPop(c, addr, {.group = g, .topic = t, .maxNums = 4, .invisibleMs = 2000});
  node.proc.kill();
  const int64_t killedAt = nowMillis();
  const size_t ackedBeforeKill = log.acked();
  bool restarted = node.restart();
  bool all = restarted && eventually([&] { return log.acked() == size_t(n); }, 15s);
  stop = true;
  a.join();
  b.join();
  REQUIRE(started);
  REQUIRE(restarted);
  REQUIRE(held.has_value());
  REQUIRE(!held->messages.empty());
  MESSAGE("acked before the kill: " << ackedBeforeKill << ", deliveries: " << log.deliveries.size());

  // Every message was delivered and acked in the end.
  CHECK(all);
  CHECK(log.ackedAt.size() == size_t(n));
  CHECK(ackedBeforeKill >= 100);
  // An ack answered SUCCESS is durable: no delivery of that message afterwards, across the kill too.
  int redeliveredAfterRestart = 0;
  for (const auto& d : log.deliveries) {
    auto it = log.ackedAt.find(d.body);
    if (it != log.ackedAt.end()) CHECK_MESSAGE(d.ms <= it->second, d.body << " delivered after its ack was answered");
    redeliveredAfterRestart += d.ms > killedAt && d.reconsumeTimes > 0;
  }
  // The batch in flight at the kill came back after the restart, as a redelivery.
  for (const auto& m : held->messages) {
    bool back = std::any_of(log.deliveries.begin(), log.deliveries.end(), [&](const Delivery& d) {
      return d.body == m.body && d.ms > killedAt && d.reconsumeTimes >= 1;
    });
    CHECK_MESSAGE(back, m.body << " (in flight at the kill) not redelivered");
  }
  CHECK(redeliveredAfterRestart >= int(held->messages.size()));
}
