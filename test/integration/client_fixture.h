#pragma once
// Clients of the client library (src/client) bound to a DevNode: options pointing at its name
// server, started producers / pull consumers (REQUIREd), and the send / pull-everything steps
// the client and tools tests share.
#include <memory>
#include <string>
#include <vector>

#include "client/producer/producer.h"
#include "client/consumer/pull_consumer.h"
#include "client/consumer/push_consumer.h"
#include "dev_node.h"

namespace rmq::test {

// Options for a client of `node`; group "" = a unique one ("pg_..", "cg_..").
client::ProducerOptions producerOptions(const DevNode& node, const std::string& group = "");
client::PullConsumerOptions pullOptions(const DevNode& node, const std::string& group = "");
client::PushConsumerOptions pushOptions(const DevNode& node, const std::string& group = "");

// Push options for tests that must not wait long: from the first offset, offsets persisted every
// 500 ms, a rebalance every 2 s (picks up %RETRY% routes quickly), 4 consume threads.
client::PushConsumerOptions fastPushOptions(const DevNode& node, const std::string& group);

std::unique_ptr<client::Producer> startProducer(const client::ProducerOptions& options);
std::unique_ptr<client::PullConsumer> startPullConsumer(const client::PullConsumerOptions& options);

// Sends `n` messages to `topic` with bodies prefix0, prefix1, ... (keys keyPrefix<i> when given);
// REQUIREs each send.
std::vector<client::SendResult> sendBodies(client::Producer& p, const std::string& topic, const std::string& prefix,
                                           int n, const std::string& tag = "TagA", const std::string& keyPrefix = "");

// Every message of every queue of `topic`, pulled from offset 0.
std::vector<MessageExt> pullAll(client::PullConsumer& pc, const std::string& topic);

// doctest fixture of the consumer tests (TEST_CASE_FIXTURE): a started DevNode with a started
// producer; newTopic() adds a topic. REQUIREs every step.
struct NodeWithProducer {
  NodeWithProducer();
  // A topic named prefix_<unique> with `queues` queues, created and routable.
  std::string newTopic(const std::string& prefix, int queues);

  DevNode node;
  std::unique_ptr<client::Producer> producer;
};

}  // namespace rmq::test
