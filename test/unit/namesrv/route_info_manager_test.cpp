#include <doctest/doctest.h>

#include <algorithm>

#include "roles/namesrv/route_info_manager.h"

using namespace rmq::namesrv;

namespace {

RegisterBrokerBody bodyWith(std::vector<TopicConfigEntry> topics, int64_t counter = 1) {
  RegisterBrokerBody b;
  b.dataVersion = DataVersion{1000, counter};
  b.topics = std::move(topics);
  b.filterServerList.emplace();
  return b;
}

TopicConfigEntry topic(std::string name, int32_t queues = 4, int32_t perm = 6, int32_t sysFlag = 0) {
  return TopicConfigEntry{std::move(name), queues, queues, perm, sysFlag};
}

BrokerRegistration broker(std::string cluster, std::string name, int64_t id, std::string addr) {
  return BrokerRegistration{std::move(cluster), addr, std::move(name), id, addr + "-ha"};
}

}  // namespace

TEST_CASE("master registration creates routes; slave learns master and HA address") {
  RouteInfoManager m;
  auto r1 = m.registerBroker(broker("c1", "broker-a", 0, "10.0.0.1:10911"), bodyWith({topic("T1"), topic("T2", 8)}),
                             ChannelRef{1, {}}, 0);
  CHECK(r1->masterAddr.empty());
  auto r2 = m.registerBroker(broker("c1", "broker-a", 1, "10.0.0.2:10911"), bodyWith({topic("SLAVE_ONLY")}),
                             ChannelRef{2, {}}, 0);
  CHECK(r2->masterAddr == "10.0.0.1:10911");
  CHECK(r2->haServerAddr == "10.0.0.1:10911-ha");

  auto route = m.pickupTopicRouteData("T2");
  REQUIRE(route);
  REQUIRE(route->queueDatas.size() == 1);
  CHECK(route->queueDatas[0] == QueueData{"broker-a", 8, 8, 6, 0});
  REQUIRE(route->brokerDatas.size() == 1);
  CHECK(route->brokerDatas[0].cluster == "c1");
  CHECK(route->brokerDatas[0].brokerAddrs.at(0) == "10.0.0.1:10911");
  CHECK(route->brokerDatas[0].brokerAddrs.at(1) == "10.0.0.2:10911");
  // A slave's topic list never creates routes.
  CHECK_FALSE(m.pickupTopicRouteData("SLAVE_ONLY"));
  CHECK_FALSE(m.pickupTopicRouteData("nope"));
}

TEST_CASE("topic configs are re-read only when the data version changes") {
  RouteInfoManager m;
  auto b = broker("c1", "broker-a", 0, "a:1");
  m.registerBroker(b, bodyWith({topic("T", 4)}, 1), ChannelRef{1, {}}, 0);
  m.registerBroker(b, bodyWith({topic("T", 2)}, 1), ChannelRef{1, {}}, 1);  // same version: ignored
  CHECK(m.pickupTopicRouteData("T")->queueDatas[0].writeQueueNums == 4);
  m.registerBroker(b, bodyWith({topic("T", 2)}, 2), ChannelRef{1, {}}, 2);
  CHECK(m.pickupTopicRouteData("T")->queueDatas[0].writeQueueNums == 2);
  CHECK(m.isBrokerTopicConfigChanged("a:1", DataVersion{1000, 1}));
  CHECK_FALSE(m.isBrokerTopicConfigChanged("a:1", DataVersion{1000, 2}));
}

TEST_CASE("expiry removes the broker, its empty BrokerData, cluster entry and orphan topics") {
  RouteInfoManager m;
  m.registerBroker(broker("c1", "a", 0, "a:1"), bodyWith({topic("Shared"), topic("OnlyA")}), ChannelRef{1, {}}, 0);
  m.registerBroker(broker("c2", "b", 0, "b:1"), bodyWith({topic("Shared")}), ChannelRef{2, {}}, 500);
  auto expired = m.scanNotActiveBrokers(1100, 1000);
  REQUIRE(expired.size() == 1);
  CHECK(expired[0].id == 1);
  CHECK_FALSE(m.pickupTopicRouteData("OnlyA"));
  auto shared = m.pickupTopicRouteData("Shared");
  REQUIRE(shared);
  CHECK(shared->queueDatas.size() == 1);
  CHECK(shared->queueDatas[0].brokerName == "b");
  auto info = m.clusterInfoJson();
  CHECK(info.find("\"c1\"") == std::string::npos);
  CHECK(info.find("\"c2\":[\"b\"]") != std::string::npos);
  CHECK(m.liveBrokerCount() == 1);
}

TEST_CASE("connection close removes every broker registered over it, and only those") {
  RouteInfoManager m;
  m.registerBroker(broker("c1", "a", 0, "a:1"), bodyWith({topic("T")}), ChannelRef{7, {}}, 0);
  m.registerBroker(broker("c1", "a", 1, "a:2"), bodyWith({}), ChannelRef{7, {}}, 0);
  m.registerBroker(broker("c1", "b", 0, "b:1"), bodyWith({topic("T")}), ChannelRef{8, {}}, 0);
  CHECK(m.onChannelDestroyed(99).empty());
  auto removed = m.onChannelDestroyed(7);
  CHECK(removed.size() == 2);
  auto route = m.pickupTopicRouteData("T");
  REQUIRE(route);
  CHECK(route->brokerDatas.size() == 1);
  CHECK(route->brokerDatas[0].brokerName == "b");
}

TEST_CASE("unregister, promoted slave, delete topic, write perm") {
  RouteInfoManager m;
  m.registerBroker(broker("c1", "a", 0, "a:1"), bodyWith({topic("T"), topic("U")}), ChannelRef{1, {}}, 0);
  m.registerBroker(broker("c1", "a", 1, "a:2"), bodyWith({}), ChannelRef{2, {}}, 0);
  // Slave a:2 promoted to master: its id-1 entry goes away.
  m.registerBroker(broker("c1", "a", 0, "a:2"), bodyWith({topic("T")}, 5), ChannelRef{2, {}}, 0);
  auto route = m.pickupTopicRouteData("T");
  REQUIRE(route);
  CHECK(route->brokerDatas[0].brokerAddrs.size() == 1);
  CHECK(route->brokerDatas[0].brokerAddrs.at(0) == "a:2");

  CHECK(m.wipeWritePerm("a") == 2);
  CHECK(m.pickupTopicRouteData("T")->queueDatas[0].perm == 4);
  CHECK(m.addWritePerm("a") == 2);
  CHECK(m.pickupTopicRouteData("T")->queueDatas[0].perm == 6);
  CHECK(m.wipeWritePerm("nosuch") == 0);

  m.deleteTopic("U", "other-cluster");
  CHECK(m.pickupTopicRouteData("U"));
  m.deleteTopic("U", "c1");
  CHECK_FALSE(m.pickupTopicRouteData("U"));
  m.deleteTopic("T");
  CHECK_FALSE(m.pickupTopicRouteData("T"));

  m.registerBroker(broker("c1", "a", 0, "a:2"), bodyWith({topic("V")}, 6), ChannelRef{2, {}}, 0);
  m.unregisterBroker("c1", "a:2", "a", 0);
  CHECK_FALSE(m.pickupTopicRouteData("V"));
  CHECK(m.clusterInfoJson() == "{\"brokerAddrTable\":{},\"clusterAddrTable\":{}}");
}

TEST_CASE("topic lists: all, by cluster, system, unit flags") {
  RouteInfoManager m;
  m.registerBroker(broker("c1", "a", 0, "a:1"),
                   bodyWith({topic("Plain"), topic("Unit", 1, 6, kTopicFlagUnit),
                             topic("UnitSub", 1, 6, kTopicFlagUnitSub),
                             topic("Both", 1, 6, kTopicFlagUnit | kTopicFlagUnitSub)}),
                   ChannelRef{1, {}}, 0);
  m.registerBroker(broker("c2", "b", 0, "b:1"), bodyWith({topic("InC2")}), ChannelRef{2, {}}, 0);
  auto sorted = [](std::vector<std::string> v) { std::sort(v.begin(), v.end()); return v; };
  CHECK(sorted(m.allTopics()) == std::vector<std::string>{"Both", "InC2", "Plain", "Unit", "UnitSub"});
  CHECK(sorted(m.topicsByCluster("c2")) == std::vector<std::string>{"InC2"});
  CHECK(m.topicsByCluster("none").empty());
  CHECK(sorted(m.unitTopics()) == std::vector<std::string>{"Both", "Unit"});
  CHECK(sorted(m.hasUnitSubTopics()) == std::vector<std::string>{"Both", "UnitSub"});
  CHECK(m.hasUnitSubUnUnitTopics() == std::vector<std::string>{"UnitSub"});
  auto sys = m.systemTopicList();
  CHECK(sys.topics == std::vector<std::string>{"c1", "a", "c2", "b"});
  CHECK(sys.brokerAddr == "a:1");
}

TEST_CASE("filter servers follow the broker and appear in routes") {
  RouteInfoManager m;
  auto body = bodyWith({topic("T")});
  body.filterServerList = std::vector<std::string>{"f:1"};
  m.registerBroker(broker("c1", "a", 0, "a:1"), body, ChannelRef{1, {}}, 0);
  auto route = m.pickupTopicRouteData("T");
  REQUIRE(route);
  CHECK(route->filterServerTable.at("a:1") == std::vector<std::string>{"f:1"});
  m.registerBroker(broker("c1", "a", 0, "a:1"), bodyWith({topic("T")}), ChannelRef{1, {}}, 0);
  CHECK(m.pickupTopicRouteData("T")->filterServerTable.empty());
}
