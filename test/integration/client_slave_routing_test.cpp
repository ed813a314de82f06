// The client library follows routes to a slave as the Java 4.9 client does, against real
// processes: a name server, a master and a slave (`--role=slave`, brokerId 1, replicating from
// the master) of one broker name. The master has slaveReadEnable on and the consumer group's
// brokerId is 1, so every master answer suggests broker 1; the slave has slaveReadEnable off, so
// its answers suggest the master (0): the suggestion in each answer tells which node served it.
// Then the master is killed (pulls and consumer offsets continue on the slave, which has every
// message) and restarted (offsets go to it again).
#include <doctest/doctest.h>

#include "client/admin/admin_client.h"
#include "client/broker_api.h"
#include "client/message_helpers.h"
#include "client/producer/producer.h"
#include "client/consumer/pull_consumer.h"
#include "client/request_headers.h"
#include "dev_node.h"
#include "node_config.h"
#include "node_process.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;

namespace {

constexpr const char* kBrokerName = "broker-r";

// A name server, a master (id 0) and a slave (id 1) of kBrokerName, each its own process.
struct MasterSlave {
  NodeProcess ns, master, slave;
  uint16_t nsPort = 0, masterPort = 0, slavePort = 0;

  MasterSlave() {
    nsPort = freePort();
    masterPort = freeBrokerPort();
    slavePort = freeBrokerPort();
    ns.writeFile("ns.toml", namesrvToml(ns, nsPort));
    ns.setArgs({"--role=namesrv", "-c", ns.path("ns.toml")});
    ns.waitForPorts({nsPort});
    configure(master, masterPort, 0, "--role=master", true);
    configure(slave, slavePort, 1, "--role=slave", false);
  }
  void configure(NodeProcess& node, uint16_t port, int64_t brokerId, const std::string& role, bool slaveRead) {
    BrokerToml b;
    b.port = port;
    b.namesrvAddr = namesrvAddr();
    b.name = kBrokerName;
    b.id = brokerId;
    b.extraBroker = std::string("slaveReadEnable = ") + (slaveRead ? "true" : "false") + "\n";
    node.writeFile("broker.toml", logDirToml(node) + brokerToml(node, b));
    node.setArgs({role, "-c", node.path("broker.toml")});
    node.waitForPorts({port});
  }
  std::string namesrvAddr() const { return "127.0.0.1:" + std::to_string(nsPort); }
  std::string masterAddr() const { return "127.0.0.1:" + std::to_string(masterPort); }
  std::string slaveAddr() const { return "127.0.0.1:" + std::to_string(slavePort); }
  ClientConfig clientConfig() const {
    ClientConfig c;
    c.namesrvAddr = namesrvAddr();
    c.clientIp = "127.0.0.1";
    c.pollNameServerInterval = std::chrono::milliseconds(500);  // see route changes quickly
    return c;
  }
};

// The broker ids the name server's route of `topic` lists for kBrokerName.
std::vector<int64_t> routeIds(AdminClient& admin, const std::string& topic) {
  std::vector<int64_t> ids;
  auto r = admin.run(admin.asyncTopicRoute(topic));
  if (!r) return ids;
  for (const auto& b : r->brokerDatas)
    if (b.brokerName == kBrokerName)
      for (const auto& [id, addr] : b.brokerAddrs) ids.push_back(id);
  return ids;
}

// QUERY_CONSUMER_OFFSET of queue 0 asked of one node directly (-1: none stored or no answer).
int64_t storedOffset(PullConsumer& pc, const std::string& addr, const std::string& group, const std::string& topic) {
  auto& inst = pc.instance();
  auto resp = inst.runSync(inst.invoke(addr, makeQueryConsumerOffset(group, topic, 0), std::chrono::seconds(5)));
  if (!resp || resp->code != 0) return -1;
  return resp->extFields.getInt("offset").value_or(-1);
}

}  // namespace

TEST_CASE("client slave routing: suggestWhichBrokerId, slave fallback without a master, offsets follow the master") {
  MasterSlave nodes;
  REQUIRE(nodes.ns.start());
  REQUIRE(nodes.master.start(std::chrono::seconds(30)));
  REQUIRE(nodes.slave.start(std::chrono::seconds(30)));

  AdminClient admin(nodes.clientConfig());
  REQUIRE(admin.start().ok());
  const std::string topic = uniqueName("SlaveRouteTopic");
  const std::string group = uniqueName("slaveg");
  TopicConfigSpec spec;
  spec.topicName = topic;
  spec.readQueueNums = spec.writeQueueNums = 1;
  auto created = admin.run(admin.asyncCreateTopicOnBroker(nodes.masterAddr(), spec));
  REQUIRE_MESSAGE(created.ok(), created.error().code, " ", created.error().message);
  REQUIRE(eventually([&] { return routeIds(admin, topic) == std::vector<int64_t>{0, 1}; }, std::chrono::seconds(20)));
  // The master tells this group to read from broker 1 (Java: subscriptionGroupConfig.brokerId,
  // suggested while slaveReadEnable is on).
  SubscriptionGroupConfig sg;
  sg.groupName = group;
  sg.brokerId = 1;
  REQUIRE(admin.run(admin.asyncUpdateSubscriptionGroup(nodes.masterAddr(), sg)).ok());

  ProducerOptions po;
  po.group = uniqueName("pg");
  po.client = nodes.clientConfig();
  Producer producer(po);
  REQUIRE(producer.start().ok());
  for (int i = 0; i < 5; ++i) REQUIRE_OK(producer.send(makeMessage(topic, "", "", "m" + std::to_string(i))));

  PullConsumerOptions co;
  co.group = group;
  co.client = nodes.clientConfig();
  PullConsumer pc(co);
  REQUIRE(pc.start().ok());
  auto queues = pc.fetchSubscribeMessageQueues(topic);
  REQUIRE(queues.ok());
  REQUIRE(queues->size() == 1);
  const MessageQueue mq = queues->front();

  // Sends are acknowledged before the consume queue has them: wait for all 5.
  REQUIRE(eventually([&] {
    auto max = pc.maxOffset(mq);
    return max.ok() && *max == 5;
  }, std::chrono::seconds(10)));
  // The slave serves the topic once it replicated the 5 messages and synced the topic config
  // from the master (every 10 s): asked directly, bypassing the routing under test.
  PullMessageHeader direct;
  direct.consumerGroup = group;
  direct.topic = topic;
  direct.queueId = 0;
  direct.maxMsgNums = 32;
  direct.sysFlag = kPullSubscription;
  direct.subscription = "*";
  direct.expressionType = "TAG";
  REQUIRE(eventually([&] {
    auto& inst = pc.instance();
    auto d = inst.runSync(pullMessage(inst, nodes.slaveAddr(), direct, std::chrono::seconds(5), nullptr));
    return d.ok() && d->status == PullStatus::FOUND && d->messages.size() == 5;
  }, std::chrono::seconds(40)));
  // 1st pull: the master (5 messages), which suggests broker 1.
  Result<PullResult> r = makeError(-1, "unset");
  r = pc.pull(mq, "*", 0, 32);
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK(r->status == PullStatus::FOUND);
  CHECK(r->messages.size() == 5);
  CHECK(r->suggestWhichBrokerId == 1);
  // 2nd pull: the slave, which suggests the master back; 3rd: the master; 4th: the slave.
  for (int64_t expectSuggested : {0, 1, 0}) {
    r = pc.pull(mq, "*", 0, 32);
    REQUIRE_MESSAGE(r.ok(), r.error().message);
    CHECK(r->status == PullStatus::FOUND);
    CHECK(r->messages.size() == 5);
    CHECK(r->suggestWhichBrokerId == expectSuggested);
  }

  // Consumer offsets go to the master while it is in the route.
  REQUIRE(pc.updateConsumeOffset(mq, 2).ok());
  CHECK(storedOffset(pc, nodes.masterAddr(), group, topic) == 2);

  // The master dies: the name server drops it, the client's route follows (every 500 ms here),
  // and pulls for the master (the last suggestion) and offsets move to the slave:
  // findBrokerAddressInSubscribe falls back to the remaining node. The slave has the messages.
  nodes.master.kill();
  REQUIRE(eventually([&] { return routeIds(admin, topic) == std::vector<int64_t>{1}; }, std::chrono::seconds(20)));
  REQUIRE(eventually([&] { return !pc.instance().masterAddr(kBrokerName); }, std::chrono::seconds(20)));
  REQUIRE(eventually([&] {
    r = pc.pull(mq, "*", 0, 32);
    return r.ok() && r->status == PullStatus::FOUND && r->messages.size() == 5;
  }, std::chrono::seconds(20)));
  CHECK(r->suggestWhichBrokerId == 0);
  for (size_t i = 0; i < r->messages.size(); ++i) CHECK(r->messages[i].body == "m" + std::to_string(i));
  auto updated = pc.updateConsumeOffset(mq, 3);
  REQUIRE_MESSAGE(updated.ok(), updated.error().code, " ", updated.error().message);
  CHECK(storedOffset(pc, nodes.slaveAddr(), group, topic) == 3);
  auto fetched = pc.fetchConsumeOffset(mq);
  REQUIRE(fetched.ok());
  CHECK(*fetched == 3);
  // Queue offsets come from the slave's replica while the master is gone (see broker_api.h).
  auto max = pc.maxOffset(mq);
  REQUIRE(max.ok());
  CHECK(*max == 5);

  // The master is back: offsets go to it again.
  REQUIRE(nodes.master.restart(std::chrono::seconds(30)));
  REQUIRE(eventually([&] { return routeIds(admin, topic) == std::vector<int64_t>{0, 1}; }, std::chrono::seconds(20)));
  // ... and the consumer's own route has the master again (refreshed every 500 ms here).
  REQUIRE(eventually([&] { return pc.instance().masterAddr(mq.brokerName).has_value(); }, std::chrono::seconds(20)));
  REQUIRE(pc.updateConsumeOffset(mq, 4).ok());
  CHECK(storedOffset(pc, nodes.masterAddr(), group, topic) == 4);

  pc.shutdown();
  producer.shutdown();
  admin.shutdown();
}
