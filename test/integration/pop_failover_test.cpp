// POP state across a failover: the pop log (rmq_sys_pop_state) reaches the slave by replication
// and the promoted slave replays it (becameMaster): after kill -9 of the master, an acked message
// is never delivered again and an un-acked one comes back after its invisible time, as attempt 2.
#include <doctest/doctest.h>

#include <set>
#include <thread>

#include "broker_calls.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "failover_cluster.h"
#include "pop_helpers.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

TEST_CASE("pop failover: after kill -9 of the master the promoted slave redelivers the un-acked half only, as attempt 2") {
  FailoverCluster c({.mode = "SYNC_MASTER"});
  REQUIRE(c.startAll("PopFo"));
  REQUIRE(c.waitInSync(1, 2, 30s));
  const int n = 20;
  std::vector<SendSpec> sends;
  for (int i = 0; i < n; ++i) sends.push_back({.topic = "PopFo", .body = "m" + std::to_string(i), .queueId = 0});
  sendDispatched(c.client, c.addr(1), sends);

  const std::string g = "GID_popfo";
  const int64_t invisible = 5000;  // room for 10 SYNC_MASTER acks on a loaded box
  auto p = popMessages(c.client, c.addr(1), {.group = g, .topic = "PopFo", .queueId = 0, .invisibleMs = invisible});
  REQUIRE(p.messages.size() == size_t(n));
  const int64_t visibleAt = extInt(p.resp, "popTime") + invisible;
  std::set<std::string> unacked;
  for (const auto& m : p.messages) {
    if (m.queueOffset % 2 == 0) {
      REQUIRE(ackMessage(c.client, c.addr(1), g, "PopFo", m) == ResponseCode::SUCCESS);  // SYNC_MASTER: on the slave too
    } else {
      unacked.insert(m.body);
    }
  }
  REQUIRE(eventually([&] { return c.maxPhyOffset(1) == c.maxPhyOffset(2); }, 15s));
  c.broker(1).kill();
  REQUIRE(c.waitMaster(2, 15s));

  // The new master hands out the un-acked half (due at the end of their invisible time) and
  // nothing else, each once.
  std::set<std::string> back;
  std::vector<MessageExt> redelivered;
  int64_t firstBack = 0;
  const auto deadline = std::chrono::steady_clock::now() + 15s;
  while (back.size() < unacked.size() && std::chrono::steady_clock::now() < deadline) {
    auto got = popMessages(c.client, c.addr(2), {.group = g, .topic = "PopFo", .queueId = 0, .invisibleMs = 60000, .pollMs = 2000});
    if (got.code == ResponseCode::SERVICE_NOT_AVAILABLE) std::this_thread::sleep_for(100ms);  // not serving POP yet
    if (got.code != ResponseCode::SUCCESS) continue;
    if (firstBack == 0) firstBack = nowMillis();
    for (auto& m : got.messages) {
      CHECK_MESSAGE(unacked.count(m.body) == 1, "delivered again: " << m.body);
      CHECK_MESSAGE(back.insert(m.body).second, "twice: " << m.body);
      redelivered.push_back(m);
    }
  }
  CHECK(back == unacked);
  MESSAGE("first redelivery " << firstBack - visibleAt << " ms after the invisible time ended");
  CHECK(firstBack >= visibleAt);
  for (const auto& m : redelivered) CHECK(m.reconsumeTimes == 1);  // delivery attempt 2
  // The new handles ack on the new master; then nothing is left for the group.
  for (const auto& m : redelivered) CHECK(ackMessage(c.client, c.addr(2), g, "PopFo", m) == ResponseCode::SUCCESS);
  auto rest = popMessages(c.client, c.addr(2), {.group = g, .topic = "PopFo", .queueId = 0, .invisibleMs = 1000, .pollMs = 500});
  CHECK(rest.messages.empty());
  CHECK(consumerOffset(c.client, c.addr(2), g, "PopFo", 0) == n);
}
