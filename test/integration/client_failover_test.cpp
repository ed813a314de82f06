// Our producer during a broker-group failover, against real processes: a failed send (transport
// error, or SERVICE_NOT_AVAILABLE from a demoted master) refreshes the topic's route at once, so
// the retry — or, without a retry left, the next send — reaches the group's new master within
// about a second instead of at the next 30 s route poll (pollNameServerInterval stays 30 s here).
#include <doctest/doctest.h>

#include "client/admin/admin_client.h"
#include "client/message_helpers.h"
#include "client/producer/producer.h"
#include "common/message_id.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "namesrv_client.h"
#include "node_config.h"
#include "node_process.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;

namespace {

constexpr const char* kGroup = "broker-fo";

// A broker process of kGroup on a free port; `namesrvAddr` "" = registers nowhere (the test
// registers it by hand, as the lead's election would).
struct Broker {
  NodeProcess node;
  uint16_t port = freeBrokerPort();
  std::string addr = "127.0.0.1:" + std::to_string(port);
  Broker(const std::string& namesrvAddr, int64_t id, const std::string& role) {
    BrokerToml b;
    b.port = port;
    b.namesrvAddr = namesrvAddr;
    b.name = kGroup;
    b.id = id;
    node.writeFile("broker.toml", logDirToml(node) + brokerToml(node, b));
    node.setArgs({role, "-c", node.path("broker.toml")});
    node.setEnv("NAMESRV_ADDR", "");
    node.waitForPorts({port});
  }
};

ClientConfig clientConfig(const Namesrv& ns) {
  ClientConfig c;
  c.namesrvAddr = ns.addr;
  c.clientIp = "127.0.0.1";
  return c;  // pollNameServerInterval: the default 30 s
}

std::string storeHostOf(const SendResult& r) {
  auto id = parseOffsetMsgId(r.offsetMsgId);
  return id ? id->storeHost.toString() : "";
}

bool createTopic(AdminClient& admin, const std::string& brokerAddr, const std::string& topic) {
  TopicConfigSpec spec;
  spec.topicName = topic;
  spec.readQueueNums = spec.writeQueueNums = 4;
  return admin.run(admin.asyncCreateTopicOnBroker(brokerAddr, spec)).ok();
}

// The name server's master address of kGroup in `topic`'s route ("" = none).
std::string routeMaster(AdminClient& admin, const std::string& topic) {
  auto r = admin.run(admin.asyncTopicRoute(topic));
  if (!r) return "";
  for (const auto& b : r->brokerDatas)
    if (b.brokerName == kGroup && b.brokerAddrs.count(0)) return b.brokerAddrs.at(0);
  return "";
}

}  // namespace

TEST_CASE("client failover: a demoted master answers 14, the retry goes to the newly registered master") {
  Namesrv ns;
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  Broker master("", 0, "--role=master");
  Broker demoted("", 1, "--role=slave");  // answers every send with SERVICE_NOT_AVAILABLE
  REQUIRE_MESSAGE(master.node.start(std::chrono::seconds(30)), master.node.stderrText());
  REQUIRE_MESSAGE(demoted.node.start(std::chrono::seconds(30)), demoted.node.stderrText());
  AdminClient admin(clientConfig(ns));
  REQUIRE(admin.start().ok());
  const std::string topic = uniqueName("FoTopic");
  REQUIRE(createTopic(admin, master.addr, topic));

  // Epoch 1: the (soon demoted) node is the group's master; the producer caches that route.
  TestClient c;
  const std::string topicLine = topic + ":4";
  REQUIRE(codeOf(c.call(ns.addr, registerRequest("DefaultCluster", kGroup, 0, demoted.addr,
                                                 registerBody(1, {topicLine}, 1)))) == 0);
  ProducerOptions po;
  po.group = uniqueName("pg");
  po.client = clientConfig(ns);
  Producer producer(po);
  REQUIRE(producer.start().ok());
  REQUIRE(producer.fetchPublishQueues(topic).ok());
  REQUIRE(producer.instance().masterAddr(kGroup) == demoted.addr);

  // Epoch 2: the election moved the master; the old one is still up (it answers 14).
  REQUIRE(codeOf(c.call(ns.addr, registerRequest("DefaultCluster", kGroup, 0, master.addr,
                                                 registerBody(2, {topicLine}, 2)))) == 0);
  REQUIRE(routeMaster(admin, topic) == master.addr);
  CHECK(producer.instance().routeRefreshesAfterFailure() == 0);

  auto start = std::chrono::steady_clock::now();
  auto r = producer.send(makeMessage(topic, "", "", "after the failover"));
  auto took = std::chrono::steady_clock::now() - start;
  REQUIRE_MESSAGE(r.ok(), r.error().code, " ", r.error().message);
  CHECK(r->status == SendStatus::SEND_OK);
  CHECK(storeHostOf(*r) == master.addr);
  CHECK(took < std::chrono::seconds(2));
  CHECK(producer.instance().routeRefreshesAfterFailure() == 1);
  CHECK(producer.instance().masterAddr(kGroup) == master.addr);

  // The demoted node's stale registration is refused by the name server and changes nothing.
  auto stale = c.call(ns.addr, registerRequest("DefaultCluster", kGroup, 0, demoted.addr, registerBody(3, {topicLine}, 1)));
  REQUIRE(stale);
  CHECK(stale->code == ResponseCode::SYSTEM_ERROR);
  CHECK(routeMaster(admin, topic) == master.addr);

  // Later sends go straight to the new master: no failure, no further refresh.
  for (int i = 0; i < 4; ++i) {
    auto next = producer.send(makeMessage(topic, "", "", "steady " + std::to_string(i)));
    REQUIRE(next.ok());
    CHECK(storeHostOf(*next) == master.addr);
  }
  CHECK(producer.instance().routeRefreshesAfterFailure() == 1);
  producer.shutdown();
  admin.shutdown();
}

TEST_CASE("client failover: without a retry left, the failed send's refresh lets the next send reach the new master") {
  Namesrv ns;
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  Broker oldMaster(ns.addr, 0, "--role=master");
  Broker newMaster(ns.addr, 0, "--role=master");
  REQUIRE_MESSAGE(oldMaster.node.start(std::chrono::seconds(30)), oldMaster.node.stderrText());
  AdminClient admin(clientConfig(ns));
  REQUIRE(admin.start().ok());
  const std::string topic = uniqueName("FoTopic");
  REQUIRE(createTopic(admin, oldMaster.addr, topic));
  REQUIRE(eventually([&] { return routeMaster(admin, topic) == oldMaster.addr; }, std::chrono::seconds(10)));

  ProducerOptions po;
  po.group = uniqueName("pg");
  po.client = clientConfig(ns);
  po.retryTimesWhenSendFailed = 0;
  Producer producer(po);
  REQUIRE(producer.start().ok());
  auto first = producer.send(makeMessage(topic, "", "", "before"));
  REQUIRE(first.ok());
  CHECK(storeHostOf(*first) == oldMaster.addr);

  // The master dies; a new process of the same group comes up elsewhere as brokerId 0.
  oldMaster.node.kill();
  REQUIRE_MESSAGE(newMaster.node.start(std::chrono::seconds(30)), newMaster.node.stderrText());
  REQUIRE(createTopic(admin, newMaster.addr, topic));
  REQUIRE(eventually([&] { return routeMaster(admin, topic) == newMaster.addr; }, std::chrono::seconds(10)));

  auto failedAt = std::chrono::steady_clock::now();
  auto failed = producer.send(makeMessage(topic, "", "", "to the dead master"));
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().code < 0);  // transport error, no retry
  std::optional<SendResult> sent;
  CHECK(eventually([&] {
    auto r = producer.send(makeMessage(topic, "", "", "to the new master"));
    if (r.ok()) sent = *r;
    return r.ok();
  }, std::chrono::seconds(3)));
  REQUIRE(sent);
  CHECK(storeHostOf(*sent) == newMaster.addr);
  CHECK(std::chrono::steady_clock::now() - failedAt < std::chrono::seconds(5));
  CHECK(producer.instance().routeRefreshesAfterFailure() >= 1);
  producer.shutdown();
  admin.shutdown();
}
