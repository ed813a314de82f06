// Producer modes against a real rmqnode: sync, awaitable, callback, oneway, selector, batch,
// compression, client-side size check, unknown-topic auto-creation. Every sent message is pulled
// back and compared.
#include <doctest/doctest.h>

#include <algorithm>
#include <future>
#include <map>
#include <set>

#include "client/message_helpers.h"
#include "client/producer/producer.h"
#include "client/consumer/pull_consumer.h"
#include "common/message_codec.h"
#include "common/message_id.h"
#include "common/response_code.h"
#include "client_fixture.h"
#include "dev_node.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;

namespace {

// The broker dispatches to the consume queue asynchronously (a few ms): pull until `expected`
// messages are visible (or 10 s pass), then return what is there.
std::vector<MessageExt> pullExpected(PullConsumer& pc, const std::string& topic, size_t expected) {
  std::vector<MessageExt> got;
  eventually([&] {
    got = pullAll(pc, topic);
    return got.size() >= expected;
  }, std::chrono::seconds(10));
  return got;
}

std::map<std::string, MessageExt> byUniqKey(std::vector<MessageExt> msgs) {
  std::map<std::string, MessageExt> out;
  for (auto& m : msgs) out[uniqKey(m)] = std::move(m);
  return out;
}

struct Fixture {
  DevNode node;
  std::string topic = uniqueName("ProdTopic");
  std::unique_ptr<Producer> producer;
  std::unique_ptr<PullConsumer> puller;

  Fixture() {
    REQUIRE(node.start());
    REQUIRE(node.createTopic(topic, 4));
    producer = startProducer(producerOptions(node));
    puller = startPullConsumer(pullOptions(node, uniqueName("verify")));
  }
  ~Fixture() {
    puller->shutdown();
    producer->shutdown();
  }
};

}  // namespace

TEST_CASE("client producer: sync send returns a complete SendResult and the message round-trips") {
  Fixture f;
  Message m = makeMessage(f.topic, "TagA", "key1 key2", "hello rmq");
  m.putProperty("color", "red");
  auto r = f.producer->send(m);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->status == SendStatus::SEND_OK);
  CHECK(r->msgId.size() == 32);
  CHECK(r->queue.topic == f.topic);
  CHECK(r->queue.brokerName == "broker-a");
  CHECK(r->queueOffset == 0);
  auto id = parseOffsetMsgId(r->offsetMsgId);
  REQUIRE(id.has_value());
  CHECK(id->storeHost.toString() == f.node.brokerAddr);

  auto r2 = f.producer->send(makeMessage(f.topic, "TagB", "", "second"), r->queue);
  REQUIRE(r2.ok());
  CHECK(r2->queueOffset == 1);
  CHECK(r2->queue == r->queue);

  auto all = byUniqKey(pullExpected(*f.puller, f.topic, 2));
  REQUIRE(all.size() == 2);
  const MessageExt& got = all.at(r->msgId);
  CHECK(got.body == "hello rmq");
  CHECK(got.tags() == "TagA");
  CHECK(got.keys() == "key1 key2");
  CHECK(*got.property("color") == "red");
  CHECK(got.offsetMsgId() == r->offsetMsgId);
  CHECK(got.queueId == r->queue.queueId);
}

TEST_CASE("client producer: awaitable, callback and oneway sends all arrive") {
  Fixture f;
  // The coroutine API, awaited on the producer's io thread (runSync only bridges to this thread).
  auto awaited = f.producer->instance().runSync(f.producer->asyncSend(makeMessage(f.topic, "", "", "awaited")));
  REQUIRE_MESSAGE(awaited.ok(), awaited.error().message);
  std::promise<Result<SendResult>> cbDone;
  f.producer->sendAsync(makeMessage(f.topic, "", "", "callback"), [&](Result<SendResult> r) { cbDone.set_value(r); });
  auto cb = cbDone.get_future().get();
  REQUIRE_MESSAGE(cb.ok(), cb.error().message);
  CHECK(cb->status == SendStatus::SEND_OK);
  REQUIRE(f.producer->sendOneway(makeMessage(f.topic, "", "", "oneway")).ok());
  std::set<std::string> bodies;
  REQUIRE(eventually([&] {
    bodies.clear();
    for (auto& m : pullAll(*f.puller, f.topic)) bodies.insert(m.body);
    return bodies.size() == 3;
  }, std::chrono::seconds(10)));
  CHECK(bodies == std::set<std::string>{"awaited", "callback", "oneway"});
}

TEST_CASE("client producer: order-id selector keeps one order on one queue in sequence") {
  Fixture f;
  std::map<int, std::vector<int64_t>> offsetsByOrder;
  std::map<int, int> queueOfOrder;
  for (int i = 0; i < 12; ++i) {
    int orderId = i % 3;
    auto r = f.producer->send(makeMessage(f.topic, "", "", "o" + std::to_string(orderId) + "-" + std::to_string(i)),
                              selectByOrderId, orderId);
    REQUIRE_MESSAGE(r.ok(), r.error().message);
    CHECK(r->queue.queueId == orderId % 4);
    offsetsByOrder[orderId].push_back(r->queueOffset);
  }
  for (auto& [order, offsets] : offsetsByOrder)
    for (size_t k = 0; k < offsets.size(); ++k) CHECK(offsets[k] == static_cast<int64_t>(k));
}

TEST_CASE("client producer: batch send stores consecutive messages with their own keys") {
  Fixture f;
  std::vector<Message> batch;
  for (int i = 0; i < 5; ++i) batch.push_back(makeMessage(f.topic, "TagB", "bk" + std::to_string(i), "b" + std::to_string(i)));
  auto r = f.producer->sendBatch(batch);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(std::count(r->msgId.begin(), r->msgId.end(), ',') == 4);
  auto got = pullExpected(*f.puller, f.topic, 5);
  REQUIRE(got.size() == 5);
  std::sort(got.begin(), got.end(), [](auto& a, auto& b) { return a.queueOffset < b.queueOffset; });
  for (int i = 0; i < 5; ++i) {
    CHECK(got[i].body == "b" + std::to_string(i));
    CHECK(got[i].keys() == "bk" + std::to_string(i));
    CHECK(got[i].queueOffset == r->queueOffset + i);
    CHECK(r->msgId.find(uniqKey(got[i])) != std::string::npos);
  }
  std::vector<Message> mixed{makeMessage(f.topic, "", "", "x"), makeMessage("OtherTopic", "", "", "y")};
  CHECK_FALSE(f.producer->sendBatch(mixed).ok());
}

TEST_CASE("client producer: large bodies are compressed on the wire and arrive intact; oversize is refused") {
  Fixture f;
  std::string big;
  for (int i = 0; i < 2000; ++i) big += "line " + std::to_string(i) + "\n";
  REQUIRE(big.size() > 4096);
  auto r = f.producer->send(makeMessage(f.topic, "", "", big));
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  auto got = pullExpected(*f.puller, f.topic, 1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].body == big);
  CHECK((got[0].sysFlag & sysflag::COMPRESSED) != 0);

  ProducerOptions small;
  small.group = uniqueName("pg");
  small.client = f.node.clientConfig();
  small.maxMessageSize = 1024;
  Producer limited(small);
  REQUIRE(limited.start().ok());
  auto refused = limited.send(makeMessage(f.topic, "", "", std::string(2048, 'z')));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ResponseCode::MESSAGE_ILLEGAL);
  auto empty = limited.send(makeMessage(f.topic, "", "", ""));
  CHECK(empty.error().code == ResponseCode::MESSAGE_ILLEGAL);
  auto badTopic = limited.send(makeMessage("bad topic!", "", "", "x"));
  CHECK(badTopic.error().code == ResponseCode::MESSAGE_ILLEGAL);
  limited.shutdown();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // anything wrongly sent would be dispatched by now
  CHECK(pullAll(*f.puller, f.topic).size() == 1);
}

TEST_CASE("client producer: a new topic is auto-created through TBW102") {
  Fixture f;
  std::string fresh = uniqueName("AutoTopic");
  auto r = f.producer->send(makeMessage(fresh, "", "", "first"));
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->status == SendStatus::SEND_OK);
  std::vector<MessageExt> got;
  REQUIRE(eventually([&] {
    auto q = f.puller->fetchSubscribeMessageQueues(fresh);
    if (!q.ok()) return false;
    got = pullAll(*f.puller, fresh);
    return got.size() == 1;
  }, std::chrono::seconds(10)));
  CHECK(got[0].body == "first");
}

TEST_CASE("client producer: delay level holds the message back") {
  Fixture f;
  Message m = makeMessage(f.topic, "", "", "later");
  setDelayTimeLevel(m, 2);  // 1 s in the test node's messageDelayLevel
  auto sentAt = std::chrono::steady_clock::now();
  REQUIRE_OK(f.producer->send(m));
  CHECK(pullAll(*f.puller, f.topic).empty());
  REQUIRE(eventually([&] { return pullAll(*f.puller, f.topic).size() == 1; }, std::chrono::seconds(10)));
  CHECK(std::chrono::steady_clock::now() - sentAt >= std::chrono::milliseconds(900));
}

TEST_CASE("client producer: a dead first name server is skipped; a dead broker is an error value") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("FailTopic");
  REQUIRE(node.createTopic(topic, 2));
  ProducerOptions po = producerOptions(node);
  po.client.namesrvAddr = "127.0.0.1:" + std::to_string(freePort()) + ";" + node.namesrvAddr;
  po.sendMsgTimeout = std::chrono::milliseconds(2000);
  Producer producer(po);
  REQUIRE(producer.start().ok());
  auto r = producer.send(makeMessage(topic, "", "", "via second name server"));
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->status == SendStatus::SEND_OK);

  node.proc.kill();
  auto failed = producer.send(makeMessage(topic, "", "", "nobody listens"));
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code < 0);  // transport error, after the retries
  producer.shutdown();
}
