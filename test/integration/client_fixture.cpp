#include "client_fixture.h"

#include <doctest/doctest.h>

#include "client/message_helpers.h"

namespace rmq::test {

client::ProducerOptions producerOptions(const DevNode& node, const std::string& group) {
  client::ProducerOptions o;
  o.group = group.empty() ? uniqueName("pg") : group;
  o.client = node.clientConfig();
  return o;
}

client::PullConsumerOptions pullOptions(const DevNode& node, const std::string& group) {
  client::PullConsumerOptions o;
  o.group = group.empty() ? uniqueName("cg") : group;
  o.client = node.clientConfig();
  return o;
}

client::PushConsumerOptions pushOptions(const DevNode& node, const std::string& group) {
  client::PushConsumerOptions o;
  o.group = group.empty() ? uniqueName("cg") : group;
  o.client = node.clientConfig();
  return o;
}

client::PushConsumerOptions fastPushOptions(const DevNode& node, const std::string& group) {
  client::PushConsumerOptions o = pushOptions(node, group);
  o.consumeFromWhere = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  o.persistConsumerOffsetInterval = std::chrono::milliseconds(500);
  o.rebalanceInterval = std::chrono::milliseconds(2000);
  o.consumeThreadMin = o.consumeThreadMax = 4;
  return o;
}

std::unique_ptr<client::Producer> startProducer(const client::ProducerOptions& options) {
  auto p = std::make_unique<client::Producer>(options);
  auto started = p->start();
  REQUIRE_MESSAGE(started.ok(), (started.ok() ? "" : started.error().message));
  return p;
}

std::unique_ptr<client::PullConsumer> startPullConsumer(const client::PullConsumerOptions& options) {
  auto c = std::make_unique<client::PullConsumer>(options);
  auto started = c->start();
  REQUIRE_MESSAGE(started.ok(), (started.ok() ? "" : started.error().message));
  return c;
}

std::vector<client::SendResult> sendBodies(client::Producer& p, const std::string& topic, const std::string& prefix,
                                           int n, const std::string& tag, const std::string& keyPrefix) {
  std::vector<client::SendResult> out;
  for (int i = 0; i < n; ++i) {
    std::string keys = keyPrefix.empty() ? "" : keyPrefix + std::to_string(i);
    auto r = p.send(client::makeMessage(topic, tag, keys, prefix + std::to_string(i)));
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    out.push_back(*r);
  }
  return out;
}

std::vector<MessageExt> pullAll(client::PullConsumer& pc, const std::string& topic) {
  std::vector<MessageExt> out;
  auto queues = pc.fetchSubscribeMessageQueues(topic);
  REQUIRE_MESSAGE(queues.ok(), (queues.ok() ? "" : queues.error().message));
  for (const auto& mq : *queues) {
    int64_t offset = 0;
    for (int guard = 0; guard < 100; ++guard) {
      auto r = pc.pull(mq, "*", offset, 32);
      REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
      if (r->status != client::PullStatus::FOUND) break;
      for (auto& m : r->messages) out.push_back(std::move(m));
      offset = r->nextBeginOffset;
    }
  }
  return out;
}

NodeWithProducer::NodeWithProducer() {
  REQUIRE(node.start());
  producer = startProducer(producerOptions(node));
}

std::string NodeWithProducer::newTopic(const std::string& prefix, int queues) {
  std::string topic = uniqueName(prefix);
  REQUIRE(node.createTopic(topic, queues));
  return topic;
}

}  // namespace rmq::test
