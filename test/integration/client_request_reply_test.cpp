// Request-reply (RocketMQ 4.6+) through a real rmqnode: a requester's request() is answered by a
// push consumer that replies with createReplyMessage + send (SEND_REPLY_MESSAGE_V2); the broker
// pushes the reply (PUSH_REPLY_MESSAGE_TO_CLIENT) to the requester and stores it in
// <cluster>_REPLY_TOPIC. Also: the timeout with no replier, and a reply to a client that is gone.
#include <doctest/doctest.h>

#include <atomic>
#include <future>

#include "node_process.h"

#include "broker_calls.h"
#include "client/producer/producer.h"
#include "client/consumer/push_consumer.h"
#include "client/producer/request_reply.h"
#include "client_fixture.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;

namespace {

Message requestMessage(const std::string& topic, const std::string& body) {
  Message m;
  m.topic = topic;
  m.body = body;
  m.putProperty(prop::TAGS, "Req");
  return m;
}

}  // namespace

TEST_CASE("client request-reply: round trip through the broker, sync and async; the reply is stored") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("ReqTopic");
  REQUIRE(node.createTopic(topic, 2));

  auto replier = startProducer(producerOptions(node));
  std::atomic<int> replyFailures{0};
  PushConsumerOptions co = pushOptions(node);
  co.consumeFromWhere = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  PushConsumer consumer(co);
  REQUIRE(consumer.subscribe(topic, "*").ok());
  consumer.registerListener([&](const std::vector<MessageExt>& msgs, const MessageQueue&) {
    for (const auto& m : msgs) {
      auto reply = createReplyMessage(m, "re:" + m.body);
      if (!reply || !replier->send(std::move(*reply))) replyFailures++;
    }
    return ConsumeStatus::CONSUME_SUCCESS;
  });
  REQUIRE(consumer.start().ok());

  auto requester = startProducer(producerOptions(node));
  // Generous: the consumer's first rebalance may take a while on a loaded box.
  auto reply = requester->request(requestMessage(topic, "q1"), std::chrono::seconds(30));
  REQUIRE_MESSAGE(reply.ok(), (reply ? "" : reply.error().message));
  CHECK(reply->body == "re:q1");
  CHECK(reply->topic.ends_with("_REPLY_TOPIC"));
  REQUIRE(reply->property(prop::CORRELATION_ID));
  CHECK(reply->property(prop::CORRELATION_ID)->size() == 36);
  REQUIRE(reply->property(prop::REPLY_TO_CLIENT));
  CHECK(*reply->property(prop::REPLY_TO_CLIENT) == requester->instance().clientId());
  CHECK(reply->property(prop::PUSH_REPLY_TIME));  // added by the broker's push
  CHECK(reply->property(prop::ARRIVE_TIME));      // added by the requester
  REQUIRE(reply->property(prop::MSG_TYPE));
  CHECK(*reply->property(prop::MSG_TYPE) == "reply");
  REQUIRE(reply->property(prop::TTL));
  CHECK(*reply->property(prop::TTL) == "30000");

  // Async: several requests in flight, each completed by its own reply.
  constexpr int kAsync = 5;
  std::vector<std::promise<Result<MessageExt>>> done(kAsync);
  for (int i = 0; i < kAsync; ++i)
    requester->requestAsync(requestMessage(topic, "a" + std::to_string(i)), std::chrono::seconds(30),
                            [&done, i](Result<MessageExt> r) { done[i].set_value(std::move(r)); });
  for (int i = 0; i < kAsync; ++i) {
    auto r = done[i].get_future().get();
    REQUIRE_MESSAGE(r.ok(), (r ? "" : r.error().message));
    CHECK(r->body == "re:a" + std::to_string(i));
  }
  // Coroutine: co_await asyncRequest on the client's own io thread.
  auto viaCo = requester->instance().runSync(requester->asyncRequest(requestMessage(topic, "c1"), std::chrono::seconds(30)));
  REQUIRE_MESSAGE(viaCo.ok(), (viaCo ? "" : viaCo.error().message));
  CHECK(viaCo->body == "re:c1");
  CHECK(requester->pendingRequests() == 0);
  CHECK(replyFailures == 0);

  // storeReplyMessageEnable (default true): every reply is also in <cluster>_REPLY_TOPIC.
  // The broker pushes a reply to the requester first and stores it after (as Java's
  // ReplyMessageProcessor), so the last ones reach the queue just after their requests completed.
  auto pc = startPullConsumer(pullOptions(node));
  std::vector<MessageExt> stored;
  CHECK(eventually([&] {
    stored = pullAll(*pc, reply->topic);
    return stored.size() == 2 + kAsync;
  }, std::chrono::seconds(10)));
  for (const auto& m : stored) {
    CHECK(m.body.starts_with("re:"));
    REQUIRE(m.property(prop::MSG_TYPE));
    CHECK(*m.property(prop::MSG_TYPE) == "reply");
  }
  consumer.shutdown();
}

TEST_CASE("client request-reply: no replier -> REQUEST_TIMEOUT_EXCEPTION; a reply to a gone client is refused") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("ReqNobody");
  REQUIRE(node.createTopic(topic, 1));
  auto requester = startProducer(producerOptions(node));

  auto r = requester->request(requestMessage(topic, "lost"), std::chrono::milliseconds(1500));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == client_error::REQUEST_TIMEOUT_EXCEPTION);
  CHECK_MESSAGE(r.error().message.find("OK, but wait reply message timeout, 1500 ms") != std::string::npos,
                r.error().message);
  CHECK(requester->pendingRequests() == 0);

  // The request was stored like any message: it carries the request properties and CLUSTER.
  auto pc = startPullConsumer(pullOptions(node));
  auto requests = pullAll(*pc, topic);
  REQUIRE(requests.size() == 1);
  REQUIRE(requests[0].property(prop::REPLY_TO_CLIENT));
  CHECK(*requests[0].property(prop::REPLY_TO_CLIENT) == requester->instance().clientId());
  REQUIRE(requests[0].property(prop::CLUSTER));

  // The coroutine form times out the same way.
  auto viaCo = requester->instance().runSync(
      requester->asyncRequest(requestMessage(topic, "lost-co"), std::chrono::milliseconds(1000)));
  REQUIRE_FALSE(viaCo.ok());
  CHECK(viaCo.error().code == client_error::REQUEST_TIMEOUT_EXCEPTION);
  CHECK(requester->pendingRequests() == 0);

  // A reply whose REPLY_TO_CLIENT has no producer channel: SYSTEM_ERROR with Java's remark.
  Message fake = requests[0];
  fake.putProperty(prop::REPLY_TO_CLIENT, "10.9.9.9@gone");
  auto reply = createReplyMessage(fake, "late");
  REQUIRE(reply.ok());
  ProducerOptions po = producerOptions(node);
  po.retryTimesWhenSendFailed = 0;
  auto replier = startProducer(po);
  auto sent = replier->send(std::move(*reply));
  REQUIRE_FALSE(sent.ok());
  CHECK(sent.error().code == ResponseCode::SYSTEM_ERROR);
  CHECK_MESSAGE(sent.error().message.find("channel of <10.9.9.9@gone> not found") != std::string::npos,
                sent.error().message);

  // Shutdown completes what is still pending; a stopped producer refuses at once.
  std::promise<Result<MessageExt>> pendingDone;
  requester->requestAsync(requestMessage(topic, "never"), std::chrono::seconds(60),
                          [&](Result<MessageExt> r) { pendingDone.set_value(std::move(r)); });
  REQUIRE(eventually([&] { return requester->pendingRequests() == 1; }, std::chrono::seconds(5)));
  requester->shutdown();
  auto cut = pendingDone.get_future().get();
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().code == ResponseCode::SYSTEM_ERROR);
  CHECK_FALSE(requester->request(requestMessage(topic, "late"), std::chrono::seconds(1)).ok());

  // createReplyMessage refuses a message without CLUSTER.
  auto bad = createReplyMessage(requestMessage(topic, "x"), "y");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == client_error::CREATE_REPLY_MESSAGE_EXCEPTION);
}

TEST_CASE("broker SEND_REPLY_MESSAGE (324, V1 header): no REPLY_TO_CLIENT -> SYSTEM_ERROR, still stored as sent") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto req = sendRequest({.topic = "DefaultCluster_REPLY_TOPIC", .body = "orphan", .queueId = 0, .code = 10,
                          .defaultTopic = "TBW102", .extraProps = {{"MSG_TYPE", "reply"}}});
  req.code = RequestCode::SEND_REPLY_MESSAGE;
  auto resp = c.call(node.brokerAddr, std::move(req));
  REQUIRE(resp.ok());
  CHECK(resp->code == ResponseCode::SYSTEM_ERROR);
  CHECK(resp->remark.value_or("") == "reply message properties[REPLY_TO_CLIENT] is null");
  CHECK(resp->extFields.get("MSG_REGION") == "DefaultRegion");
  CHECK(extInt(*resp, "queueOffset") == 0);  // stored (storeReplyMessageEnable) at offset 0
  CHECK(resp->extFields.get("msgId").size() > 1);

  REQUIRE(dispatched(c, node.brokerAddr, "DefaultCluster_REPLY_TOPIC", 0, 1));
  auto msgs = pullMessages(c, node.brokerAddr, {.topic = "DefaultCluster_REPLY_TOPIC"});
  REQUIRE(msgs.size() == 1);
  CHECK(msgs[0].body == "orphan");
  CHECK(*msgs[0].property(prop::MSG_TYPE) == "reply");
  CHECK(msgs[0].property(prop::CLUSTER) == nullptr);  // Java stores the reply's properties as sent
}
