// POP consumption over remoting against a real rmqnode (RocketMQ 5.x's POP_MESSAGE / ACK_MESSAGE /
// CHANGE_MESSAGE_INVISIBLETIME): ack, redelivery after the invisible time, change of it, dead
// letters, two poppers, FIFO, kill -9 with messages in flight, a parked pop woken by a send,
// BATCH_ACK_MESSAGE and PEEK_MESSAGE.
#include <doctest/doctest.h>

#include <future>
#include <map>
#include <set>
#include <thread>

#include "broker_calls.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "dev_node.h"
#include "http_get.h"
#include "pop_helpers.h"
#include "roles/broker/pop/pop_codes.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

std::vector<SendSpec> bodies(const std::string& topic, int n, int queues, const std::string& prefix = "m") {
  std::vector<SendSpec> out;
  for (int i = 0; i < n; ++i) out.push_back({.topic = topic, .body = prefix + std::to_string(i), .queueId = i % queues});
  return out;
}

struct PopNode {
  DevNode node{{.http = true}};
  TestClient c;
  std::string addr;
  PopNode() {
    REQUIRE(node.start());
    addr = node.brokerAddr;
  }
  std::string topic(const std::string& prefix, int queues) {
    std::string t = uniqueName(prefix);
    REQUIRE(node.createTopic(t, queues));
    return t;
  }
};

std::set<std::string> bodySet(const std::vector<MessageExt>& ms) {
  std::set<std::string> s;
  for (const auto& m : ms) s.insert(m.body);
  return s;
}

}  // namespace

TEST_CASE_FIXTURE(PopNode, "pop: popped and acked messages never come again; the group's offset reaches the end") {
  std::string t = topic("PopAck", 2), g = uniqueName("GID_ack");
  sendDispatched(c, addr, bodies(t, 10, 2));
  auto p = popMessages(c, addr, {.group = g, .topic = t, .invisibleMs = 1000});
  REQUIRE(p.code == ResponseCode::SUCCESS);
  REQUIRE(p.messages.size() == 10);
  CHECK(bodySet(p.messages).size() == 10);
  CHECK(extInt(p.resp, "popTime") > 0);
  CHECK(extInt(p.resp, "invisibleTime") == 1000);
  CHECK(p.resp.extFields.get("msgOffsetInfo").find("0 0 0,1,2,3,4") != std::string::npos);
  for (const auto& m : p.messages) {
    CHECK(m.reconsumeTimes == 0);
    CHECK(ackMessage(c, addr, g, t, m) == ResponseCode::SUCCESS);
  }
  // A second ack of the same handle: the message is done, the handle names nothing in flight.
  CHECK(ackMessage(c, addr, g, t, p.messages[0]) == ResponseCode::NO_MESSAGE);
  CHECK(consumerOffset(c, addr, g, t, 0) == 5);
  CHECK(consumerOffset(c, addr, g, t, 1) == 5);
  // Well past the invisible time (+1 s): nothing comes back.
  auto again = popMessages(c, addr, {.group = g, .topic = t, .invisibleMs = 1000, .pollMs = 2500});
  CHECK(again.code == ResponseCode::POLLING_TIMEOUT);
  CHECK(again.messages.empty());
  // Another group gets every message too.
  auto other = popMessages(c, addr, {.group = uniqueName("GID_other"), .topic = t});
  CHECK(other.messages.size() == 10);
}

TEST_CASE_FIXTURE(PopNode, "pop: an un-acked message comes back within its invisible time + 1 s, as attempt 2") {
  std::string t = topic("PopRedeliver", 1), g = uniqueName("GID_redeliver");
  sendDispatched(c, addr, bodies(t, 1, 1));
  const int64_t invisible = 2000;
  auto first = popMessages(c, addr, {.group = g, .topic = t, .invisibleMs = invisible});
  REQUIRE(first.messages.size() == 1);
  const int64_t visibleAt = extInt(first.resp, "popTime") + invisible;
  // A parked pop of the group is woken by the redelivery.
  auto back = popMessages(c, addr, {.group = g, .topic = t, .invisibleMs = invisible, .pollMs = 10000});
  const int64_t arrived = nowMillis();
  REQUIRE(back.code == ResponseCode::SUCCESS);
  REQUIRE(back.messages.size() == 1);
  CHECK(back.messages[0].body == first.messages[0].body);
  CHECK(back.messages[0].queueOffset == first.messages[0].queueOffset);
  CHECK(back.messages[0].reconsumeTimes == 1);  // delivery attempt 2
  MESSAGE("redelivered " << arrived - visibleAt << " ms after the invisible time ended");
  CHECK(arrived >= visibleAt);
  CHECK(arrived - visibleAt < 1000);
  // The first delivery's handle is dead; the second one acks.
  CHECK(ackMessage(c, addr, g, t, first.messages[0]) == ResponseCode::NO_MESSAGE);
  CHECK(ackMessage(c, addr, g, t, back.messages[0]) == ResponseCode::SUCCESS);
}

TEST_CASE_FIXTURE(PopNode, "pop: changeInvisible gives a new handle, kills the old one and moves the redelivery") {
  std::string t = topic("PopChange", 1), g = uniqueName("GID_change");
  sendDispatched(c, addr, bodies(t, 2, 1));
  auto p = popMessages(c, addr, {.group = g, .topic = t, .invisibleMs = 60000});
  REQUIRE(p.messages.size() == 2);
  const auto& m = p.messages[0];
  auto changed = changeInvisible(c, addr, g, t, m, handleOf(m), 500);
  REQUIRE(changed.code == ResponseCode::SUCCESS);
  std::string newHandle(changed.extFields.get("extraInfo"));
  CHECK(!newHandle.empty());
  CHECK(newHandle != handleOf(m));
  CHECK(extInt(changed, "invisibleTime") == 500);
  CHECK(ackMessage(c, addr, g, t, m) == ResponseCode::NO_MESSAGE);  // old handle
  // Back after ~0.5 s instead of 60 s; the other message stays invisible.
  auto back = popMessages(c, addr, {.group = g, .topic = t, .pollMs = 5000});
  REQUIRE(back.messages.size() == 1);
  CHECK(back.messages[0].body == m.body);
  CHECK(back.messages[0].reconsumeTimes == 1);
  // The handle of the change expired with its invisible time.
  CHECK(ackMessage(c, addr, g, t, m, newHandle) == ResponseCode::NO_MESSAGE);
  CHECK(ackMessage(c, addr, g, t, back.messages[0]) == ResponseCode::SUCCESS);
  CHECK(ackMessage(c, addr, g, t, p.messages[1]) == ResponseCode::SUCCESS);
  // Garbled and foreign handles.
  CHECK(ackMessage(c, addr, g, t, m, "not a handle") == ResponseCode::NO_MESSAGE);
  CHECK(ackMessage(c, addr, g, t, p.messages[1], "0 1 2 0 0 other-broker 0 1 5") == ResponseCode::NO_MESSAGE);
}

TEST_CASE_FIXTURE(PopNode, "pop: after retryMaxTimes + 1 deliveries the message goes to %DLQ%<group>") {
  std::string t = topic("PopDlq", 1), g = uniqueName("GID_dlq");
  createPopGroup(c, addr, g, 1, false);  // two deliveries in all
  sendDispatched(c, addr, {{.topic = t, .body = "doomed", .tags = "TagD"}});
  auto first = popMessages(c, addr, {.group = g, .topic = t, .invisibleMs = 500});
  REQUIRE(first.messages.size() == 1);
  auto second = popMessages(c, addr, {.group = g, .topic = t, .invisibleMs = 500, .pollMs = 5000});
  REQUIRE(second.messages.size() == 1);
  CHECK(second.messages[0].reconsumeTimes == 1);
  // Not acked again: no third delivery; the message is in the DLQ instead.
  auto third = popMessages(c, addr, {.group = g, .topic = t, .invisibleMs = 500, .pollMs = 2000});
  CHECK(third.messages.empty());
  std::string dlq = "%DLQ%" + g;
  REQUIRE(dispatched(c, addr, dlq, 0, 1));
  auto dead = pullMessages(c, addr, {.group = "dlq-reader", .topic = dlq});
  REQUIRE(dead.size() == 1);
  CHECK(dead[0].body == "doomed");
  CHECK(dead[0].tags() == "TagD");
  CHECK(dead[0].reconsumeTimes == 2);
  REQUIRE(dead[0].property("RETRY_TOPIC"));
  CHECK(*dead[0].property("RETRY_TOPIC") == t);
  CHECK(consumerOffset(c, addr, g, t, 0) == 1);  // done for the group
}

TEST_CASE_FIXTURE(PopNode, "pop: two poppers of one group share the messages without duplicates") {
  std::string t = topic("PopShare", 4), g = uniqueName("GID_share");
  const int n = 200;
  sendDispatched(c, addr, bodies(t, n, 4));
  std::mutex mu;
  std::map<std::string, int> seen;
  auto worker = [&] {
    TestClient own;
    for (int idle = 0; idle < 3;) {
      auto p = popMessages(own, addr, {.group = g, .topic = t, .maxNums = 8, .invisibleMs = 20000, .pollMs = 300});
      if (p.messages.empty()) {
        ++idle;
        continue;
      }
      idle = 0;
      for (const auto& m : p.messages) {
        {
          std::lock_guard lk(mu);
          ++seen[m.body];
        }
        CHECK(ackMessage(own, addr, g, t, m) == ResponseCode::SUCCESS);
      }
    }
  };
  std::thread a(worker), b(worker);
  a.join();
  b.join();
  CHECK(seen.size() == size_t(n));
  for (const auto& [body, count] : seen) CHECK_MESSAGE(count == 1, body);
}

TEST_CASE_FIXTURE(PopNode, "pop FIFO: a queue is held while its batch is un-acked; the failed message keeps its place") {
  std::string t = topic("PopFifo", 1), g = uniqueName("GID_fifo");
  createPopGroup(c, addr, g, 16, true);
  sendDispatched(c, addr, bodies(t, 8, 1));
  auto first = popMessages(c, addr, {.group = g, .topic = t, .maxNums = 3, .invisibleMs = 1000});
  REQUIRE(first.messages.size() == 3);
  CHECK(extInt(first.resp, "reviveQid") == 999);
  std::vector<std::string> order;
  for (const auto& m : first.messages) order.push_back(m.body);
  CHECK(order == std::vector<std::string>{"m0", "m1", "m2"});
  CHECK(ackMessage(c, addr, g, t, first.messages[0]) == ResponseCode::SUCCESS);
  CHECK(ackMessage(c, addr, g, t, first.messages[2]) == ResponseCode::SUCCESS);
  // m1 failed (no ack): the queue is held, nothing later is handed out meanwhile.
  auto held = popMessages(c, addr, {.group = g, .topic = t, .maxNums = 3, .invisibleMs = 1000});
  CHECK(held.code == ResponseCode::PULL_NOT_FOUND);
  // Once m1 is visible again it comes first, then the rest in order.
  std::vector<std::string> rest;
  int32_t m1Reconsume = -1;
  for (int i = 0; i < 20 && rest.size() < 6; ++i) {
    auto p = popMessages(c, addr, {.group = g, .topic = t, .maxNums = 3, .invisibleMs = 1000, .pollMs = 3000});
    for (const auto& m : p.messages) {
      rest.push_back(m.body);
      if (m.body == "m1") m1Reconsume = m.reconsumeTimes;
      CHECK(ackMessage(c, addr, g, t, m) == ResponseCode::SUCCESS);
    }
  }
  CHECK(rest == std::vector<std::string>{"m1", "m3", "m4", "m5", "m6", "m7"});
  CHECK(m1Reconsume == 1);
}

TEST_CASE_FIXTURE(PopNode, "pop FIFO: the same attemptId takes its still-invisible batch again") {
  std::string t = topic("PopAttempt", 1), g = uniqueName("GID_attempt");
  createPopGroup(c, addr, g, 16, true);
  sendDispatched(c, addr, bodies(t, 4, 1));
  auto first = popMessages(c, addr, {.group = g, .topic = t, .maxNums = 2, .invisibleMs = 30000, .attemptId = "a-1"});
  REQUIRE(first.messages.size() == 2);
  auto other = popMessages(c, addr, {.group = g, .topic = t, .maxNums = 2, .invisibleMs = 30000, .attemptId = "a-2"});
  CHECK(other.messages.empty());
  auto retry = popMessages(c, addr, {.group = g, .topic = t, .maxNums = 2, .invisibleMs = 30000, .attemptId = "a-1"});
  REQUIRE(retry.messages.size() == 2);
  CHECK(bodySet(retry.messages) == bodySet(first.messages));
  for (const auto& m : retry.messages) CHECK(ackMessage(c, addr, g, t, m) == ResponseCode::SUCCESS);
  auto next = popMessages(c, addr, {.group = g, .topic = t, .maxNums = 2, .attemptId = "a-3"});
  CHECK(bodySet(next.messages) == std::set<std::string>{"m2", "m3"});
}

TEST_CASE("pop: kill -9 with messages in flight and acked: the un-acked come back, the acked stay acked") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  std::string addr = node.brokerAddr, t = uniqueName("PopKill"), g = uniqueName("GID_kill");
  REQUIRE(node.createTopic(t, 2));
  sendDispatched(c, addr, bodies(t, 20, 2));
  auto p = popMessages(c, addr, {.group = g, .topic = t, .maxNums = 12, .invisibleMs = 3000});
  REQUIRE(p.messages.size() == 12);
  std::set<std::string> acked, unacked, all;
  for (size_t i = 0; i < p.messages.size(); ++i) {
    if (i % 2 == 0) {
      REQUIRE(ackMessage(c, addr, g, t, p.messages[i]) == ResponseCode::SUCCESS);
      acked.insert(p.messages[i].body);
    } else {
      unacked.insert(p.messages[i].body);
    }
  }
  for (int i = 0; i < 20; ++i) all.insert("m" + std::to_string(i));
  // The topic must outlive the kill: topics.json is written shortly after UPDATE_AND_CREATE_TOPIC
  // (broker README "Topic table durability"), the pop state is in the commit log at once.
  REQUIRE(eventually([&] { return node.proc.readFile("store/config/topics.json").find(t) != std::string::npos; }, 10s));
  node.proc.kill();
  REQUIRE(node.restart());
  TestClient c2;
  // Everything not acked arrives (the 6 in flight after their invisible time, the 8 never popped);
  // nothing acked does.
  std::map<std::string, int> got;
  for (int idle = 0; idle < 2;) {
    auto q = popMessages(c2, addr, {.group = g, .topic = t, .invisibleMs = 60000, .pollMs = 4000});
    if (q.messages.empty()) {
      CHECK_MESSAGE(q.code == ResponseCode::POLLING_TIMEOUT, q.resp.remark.value_or(""));
      ++idle;
      continue;
    }
    for (const auto& m : q.messages) {
      ++got[m.body];
      CHECK(ackMessage(c2, addr, g, t, m) == ResponseCode::SUCCESS);
      if (unacked.count(m.body)) CHECK(m.reconsumeTimes == 1);
    }
  }
  for (const auto& b : acked) CHECK_MESSAGE(got.count(b) == 0, b << " was acked before the kill");
  for (const auto& b : all)
    if (!acked.count(b)) CHECK_MESSAGE(got[b] == 1, b);
  CHECK(node.brokerLog().find("pop: recovered") != std::string::npos);
}

TEST_CASE_FIXTURE(PopNode, "pop long poll: a parked pop wakes when a message arrives, before its poll time ends") {
  std::string t = topic("PopPark", 2), g = uniqueName("GID_park");
  TestClient consumer;
  auto start = std::chrono::steady_clock::now();
  auto parked = std::async(std::launch::async, [&] {
    return popMessages(consumer, addr, {.group = g, .topic = t, .invisibleMs = 10000, .pollMs = 15000});
  });
  REQUIRE(eventually([&] { return parkedPulls(node.httpPort).value_or(0) == 1; }, 10s));
  sendDispatched(c, addr, {{.topic = t, .body = "wake", .queueId = 1}});
  REQUIRE(parked.wait_for(10s) == std::future_status::ready);
  auto p = parked.get();
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  MESSAGE("parked pop answered after " << elapsed.count() << " ms (poll time 15000 ms)");
  REQUIRE(p.code == ResponseCode::SUCCESS);
  REQUIRE(p.messages.size() == 1);
  CHECK(p.messages[0].body == "wake");
  CHECK(elapsed < 15000ms);
}

TEST_CASE("pop: a clean restart resumes from the shutdown checkpoint: messages in flight kept, no event replayed") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  std::string addr = node.brokerAddr, t = uniqueName("PopCkpt"), g = uniqueName("GID_ckpt");
  REQUIRE(node.createTopic(t, 1));
  sendDispatched(c, addr, bodies(t, 4, 1));
  auto p = popMessages(c, addr, {.group = g, .topic = t, .maxNums = 4, .invisibleMs = 2000});
  REQUIRE(p.messages.size() == 4);
  REQUIRE(ackMessage(c, addr, g, t, p.messages[0]) == ResponseCode::SUCCESS);
  REQUIRE(node.proc.stop() == 0);
  REQUIRE(node.restart());
  std::string log = node.brokerLog();
  auto at = log.rfind("pop: recovered");
  REQUIRE(at != std::string::npos);
  std::string line = log.substr(at, log.find('\n', at) - at);
  MESSAGE(line);
  CHECK(line.find("recovered 3 messages in flight") != std::string::npos);
  CHECK(line.find(" 0 events replayed") != std::string::npos);
  TestClient c2;
  std::set<std::string> back;
  for (int i = 0; i < 6 && back.size() < 3; ++i) {
    auto q = popMessages(c2, addr, {.group = g, .topic = t, .pollMs = 3000});
    for (const auto& m : q.messages) {
      back.insert(m.body);
      CHECK(m.reconsumeTimes == 1);
    }
  }
  CHECK(back == std::set<std::string>{"m1", "m2", "m3"});
}

TEST_CASE_FIXTURE(PopNode, "pop BATCH_ACK_MESSAGE: the offsets of one pop batch acked in one request; stale and foreign ones skipped") {
  std::string t = topic("PopBatchAck", 1), g = uniqueName("GID_batch");
  sendDispatched(c, addr, bodies(t, 6, 1));
  auto p = popMessages(c, addr, {.group = g, .topic = t, .invisibleMs = 3000});
  REQUIRE(p.messages.size() == 6);
  std::vector<MessageExt> even, odd;
  for (const auto& m : p.messages) (m.queueOffset % 2 == 0 ? even : odd).push_back(m);
  // Another broker's batch acks nothing here.
  CHECK(batchAck(c, addr, g, t, even, "another-broker").code == ResponseCode::SUCCESS);
  CHECK(ackMessage(c, addr, g, t, even[0]) == ResponseCode::SUCCESS);  // still in flight
  auto acked = batchAck(c, addr, g, t, even);
  CHECK(acked.code == ResponseCode::SUCCESS);
  CHECK(ackMessage(c, addr, g, t, even[1]) == ResponseCode::NO_MESSAGE);  // done by the batch
  CHECK(consumerOffset(c, addr, g, t, 0) == 1);  // offset 1 is the first not done
  // The odd ones come back after their invisible time; a batch of their first delivery acks nothing.
  std::vector<MessageExt> back;
  for (int i = 0; i < 4 && back.size() < odd.size(); ++i) {
    auto q = popMessages(c, addr, {.group = g, .topic = t, .invisibleMs = 60000, .pollMs = 3000});
    back.insert(back.end(), q.messages.begin(), q.messages.end());
  }
  REQUIRE(back.size() == odd.size());
  for (const auto& m : back) CHECK(m.queueOffset % 2 == 1);
  CHECK(batchAck(c, addr, g, t, odd).code == ResponseCode::SUCCESS);
  CHECK(consumerOffset(c, addr, g, t, 0) == 1);
  CHECK(batchAck(c, addr, g, t, back).code == ResponseCode::SUCCESS);
  CHECK(consumerOffset(c, addr, g, t, 0) == 6);
  // A body without acks: NO_MESSAGE, as 5.x.
  auto empty = c.call(addr, RequestCode::BATCH_ACK_MESSAGE, {}, R"({"acks":[],"brokerName":""})");
  REQUIRE(empty.ok());
  CHECK(empty->code == ResponseCode::NO_MESSAGE);
}

TEST_CASE_FIXTURE(PopNode, "pop PEEK_MESSAGE: shows what the group's next pop gets (due first, then new) and changes nothing") {
  std::string t = topic("PopPeek", 1), g = uniqueName("GID_peek");
  sendDispatched(c, addr, bodies(t, 5, 1));
  auto peeked = peekMessages(c, addr, g, t, 0, 3);
  REQUIRE(peeked.code == ResponseCode::SUCCESS);
  CHECK(peeked.remark == "FOUND");
  CHECK(extInt(peeked, "restNum") == 5);
  auto ms = pulledMessages(peeked);
  REQUIRE(ms.size() == 3);
  CHECK(ms[0].body == "m0");
  CHECK(ms[2].body == "m2");
  // Nothing popped: the pop still starts at offset 0.
  auto p = popMessages(c, addr, {.group = g, .topic = t, .queueId = 0, .invisibleMs = 3000});
  REQUIRE(p.messages.size() == 5);
  CHECK(p.messages[0].body == "m0");
  for (int i = 0; i < 4; ++i) REQUIRE(ackMessage(c, addr, g, t, p.messages[i]) == ResponseCode::SUCCESS);
  auto none = peekMessages(c, addr, g, t, -1, 32);  // every queue
  CHECK(none.code == ResponseCode::PULL_NOT_FOUND);
  CHECK(none.remark == "NO_MESSAGE_IN_QUEUE");
  CHECK(extInt(none, "restNum") == 0);
  // The un-acked m4 is due after its invisible time: the peek shows it, still in flight.
  std::vector<MessageExt> due;
  CHECK(eventually([&] { return !(due = pulledMessages(peekMessages(c, addr, g, t, 0, 32))).empty(); }, 10s));
  REQUIRE(due.size() == 1);
  CHECK(due[0].body == "m4");
  auto again = popMessages(c, addr, {.group = g, .topic = t, .queueId = 0, .invisibleMs = 1000});
  REQUIRE(again.messages.size() == 1);
  CHECK(again.messages[0].reconsumeTimes == 1);
  auto bad = peekMessages(c, addr, g, t, 7, 1);
  CHECK(bad.code == ResponseCode::INVALID_PARAMETER);
}
