// RouteInfoManager's failover epochs (dataVersion.stateVersion): stale masters are refused, a
// newer master takes its group over at once, registrations without an epoch behave as before.
#include <doctest/doctest.h>

#include "common/response_code.h"
#include "roles/namesrv/route_info_manager.h"

using namespace rmq::namesrv;

namespace {

// A registration body with topics of `queues` queues each; epoch 0 = no stateVersion field.
RegisterBrokerBody body(std::vector<std::string> topics, int64_t epoch, int32_t queues = 4, int64_t counter = 1) {
  RegisterBrokerBody b;
  b.dataVersion = DataVersion{1000, counter};
  if (epoch != 0) b.dataVersion.stateVersion = epoch;
  for (auto& t : topics) b.topics.push_back(TopicConfigEntry{t, queues, queues, 6, 0});
  b.filterServerList.emplace();
  return b;
}

BrokerRegistration reg(int64_t id, std::string addr, std::string name = "g") {
  return BrokerRegistration{"c1", addr, std::move(name), id, addr + "-ha"};
}

std::map<int64_t, std::string> addrsOf(const RouteInfoManager& m, const std::string& topic) {
  auto route = m.pickupTopicRouteData(topic);
  if (!route || route->brokerDatas.empty()) return {};
  return route->brokerDatas[0].brokerAddrs;
}

}  // namespace

TEST_CASE("epoch: a brokerId-0 registration below the group's epoch is refused and applies nothing") {
  RouteInfoManager m;
  REQUIRE(m.registerBroker(reg(0, "a:1"), body({"T"}, 5), ChannelRef{1, {}}, 0));
  REQUIRE(m.registerBroker(reg(0, "b:1"), body({"T"}, 6, 8), ChannelRef{2, {}}, 0));
  CHECK(m.masterEpoch("g") == 6);

  // The old master still believes it is master (epoch 5), with a new topic and other queues.
  auto stale = m.registerBroker(reg(0, "a:1"), body({"T", "OnlyStale"}, 5, 2, 9), ChannelRef{1, {}}, 10);
  REQUIRE_FALSE(stale);
  CHECK(stale.error().code == rmq::ResponseCode::SYSTEM_ERROR);
  const std::string& why = stale.error().message;
  CHECK(why.find("c1/g") != std::string::npos);
  CHECK(why.find("epoch 6") != std::string::npos);
  CHECK(why.find("epoch 5") != std::string::npos);
  CHECK(why.find("a:1") != std::string::npos);
  CHECK(why.find("b:1") != std::string::npos);

  CHECK(addrsOf(m, "T") == std::map<int64_t, std::string>{{0, "b:1"}});
  CHECK(m.pickupTopicRouteData("T")->queueDatas[0].writeQueueNums == 8);
  CHECK_FALSE(m.pickupTopicRouteData("OnlyStale"));
  CHECK_FALSE(m.dataVersionOf("a:1"));  // no live entry for the refused address
  CHECK(m.liveBrokerCount() == 1);
  CHECK(m.masterEpoch("g") == 6);
}

TEST_CASE("epoch: a newer master replaces the old one under id 0 and leaves its slave id") {
  RouteInfoManager m;
  REQUIRE(m.registerBroker(reg(0, "a:1"), body({"T"}, 1), ChannelRef{1, {}}, 0));
  REQUIRE(m.registerBroker(reg(1, "b:1"), body({"T"}, 1), ChannelRef{2, {}}, 0));
  REQUIRE(m.registerBroker(reg(2, "c:1"), body({"T"}, 1), ChannelRef{3, {}}, 0));
  CHECK(addrsOf(m, "T") == std::map<int64_t, std::string>{{0, "a:1"}, {1, "b:1"}, {2, "c:1"}});

  // b was elected (epoch 2) and registers as brokerId 0 while a is still registered as master.
  auto won = m.registerBroker(reg(0, "b:1"), body({"T", "New"}, 2, 4, 2), ChannelRef{2, {}}, 5);
  REQUIRE(won);
  CHECK(won->replacedMaster == "a:1");
  CHECK(addrsOf(m, "T") == std::map<int64_t, std::string>{{0, "b:1"}, {2, "c:1"}});
  CHECK(m.pickupTopicRouteData("New"));
  // The old master's live entry went with its id-0 slot: a slave is told b, never a.
  CHECK_FALSE(m.dataVersionOf("a:1"));
  CHECK(m.liveBrokerCount() == 2);
  auto slave = m.registerBroker(reg(2, "c:1"), body({}, 2), ChannelRef{3, {}}, 6);
  REQUIRE(slave);
  CHECK(slave->masterAddr == "b:1");
  CHECK(slave->haServerAddr == "b:1-ha");
  // a's connection closing later removes nothing of b's.
  CHECK(m.onChannelDestroyed(1).empty());
  CHECK(addrsOf(m, "T") == std::map<int64_t, std::string>{{0, "b:1"}, {2, "c:1"}});

  // a, demoted, comes back as a slave of the new epoch under its own id.
  auto demoted = m.registerBroker(reg(3, "a:1"), body({}, 2), ChannelRef{4, {}}, 7);
  REQUIRE(demoted);
  CHECK(demoted->masterAddr == "b:1");
  CHECK(addrsOf(m, "T") == std::map<int64_t, std::string>{{0, "b:1"}, {2, "c:1"}, {3, "a:1"}});
}

TEST_CASE("epoch: only registrations that claim or hold the master slot are fenced") {
  RouteInfoManager m;
  REQUIRE(m.registerBroker(reg(0, "b:1"), body({"T"}, 7), ChannelRef{1, {}}, 0));
  // A late slave registration of an older epoch from the master's own address would take b out
  // of id 0: refused. From another address it is harmless and accepted.
  CHECK_FALSE(m.registerBroker(reg(1, "b:1"), body({}, 6), ChannelRef{1, {}}, 1));
  CHECK(addrsOf(m, "T") == std::map<int64_t, std::string>{{0, "b:1"}});
  CHECK(m.dataVersionOf("b:1"));  // still the master: its live entry stays
  CHECK(m.registerBroker(reg(1, "c:1"), body({}, 6), ChannelRef{2, {}}, 1));
  // The same epoch is not stale: an equal-epoch master from a new address takes over.
  auto same = m.registerBroker(reg(0, "d:1"), body({"T"}, 7), ChannelRef{3, {}}, 2);
  REQUIRE(same);
  CHECK(same->replacedMaster == "b:1");
  CHECK(addrsOf(m, "T").at(0) == "d:1");
  // Epochs are per group.
  CHECK(m.registerBroker(reg(0, "x:1", "other"), body({"X"}, 1), ChannelRef{4, {}}, 2));
  CHECK(m.masterEpoch("other") == 1);
  CHECK(m.masterEpoch("g") == 7);
}

TEST_CASE("epoch: the group's epoch outlives its addresses") {
  RouteInfoManager m;
  REQUIRE(m.registerBroker(reg(0, "b:1"), body({"T"}, 4), ChannelRef{1, {}}, 0));
  CHECK(m.scanNotActiveBrokers(10'000, 1000).size() == 1);
  CHECK_FALSE(m.pickupTopicRouteData("T"));
  auto stale = m.registerBroker(reg(0, "a:1"), body({"T"}, 3), ChannelRef{2, {}}, 10'001);
  REQUIRE_FALSE(stale);
  CHECK(stale.error().message.find("master none") != std::string::npos);
  CHECK_FALSE(m.pickupTopicRouteData("T"));
  CHECK(m.liveBrokerCount() == 0);
  CHECK(m.registerBroker(reg(0, "a:1"), body({"T"}, 5), ChannelRef{2, {}}, 10'002));
  CHECK(addrsOf(m, "T") == std::map<int64_t, std::string>{{0, "a:1"}});
}

TEST_CASE("epoch: registrations without stateVersion keep the old behaviour, even in a fenced group") {
  RouteInfoManager m;
  // Two Java 4.x masters of one name: the last registration holds id 0, both stay live.
  REQUIRE(m.registerBroker(reg(0, "a:1"), body({"T"}, 0), ChannelRef{1, {}}, 0));
  auto second = m.registerBroker(reg(0, "b:1"), body({"T"}, 0), ChannelRef{2, {}}, 0);
  REQUIRE(second);
  CHECK(second->replacedMaster.empty());
  CHECK(addrsOf(m, "T") == std::map<int64_t, std::string>{{0, "b:1"}});
  CHECK(m.liveBrokerCount() == 2);
  CHECK_FALSE(m.masterEpoch("g"));
  REQUIRE(m.registerBroker(reg(0, "a:1"), body({"T"}, 0), ChannelRef{1, {}}, 1));
  CHECK(addrsOf(m, "T") == std::map<int64_t, std::string>{{0, "a:1"}});

  // A group with an epoch still accepts an epoch-less registration (failover switched off).
  REQUIRE(m.registerBroker(reg(0, "c:1"), body({"T"}, 9), ChannelRef{3, {}}, 2));
  REQUIRE(m.registerBroker(reg(0, "a:1"), body({"T"}, 0), ChannelRef{1, {}}, 3));
  CHECK(addrsOf(m, "T") == std::map<int64_t, std::string>{{0, "a:1"}});
}

TEST_CASE("epoch: stateVersion takes part in data-version equality (absent = 0, as 5.x)") {
  DataVersion plain{1000, 1};
  DataVersion zero{1000, 1, 0};
  DataVersion two{1000, 1, 2};
  CHECK(plain == zero);
  CHECK_FALSE(plain == two);
  RouteInfoManager m;
  // Same counter and timestamp, new epoch: the topics are read again.
  REQUIRE(m.registerBroker(reg(0, "a:1"), body({"T"}, 1, 4), ChannelRef{1, {}}, 0));
  REQUIRE(m.registerBroker(reg(0, "a:1"), body({"T"}, 1, 2), ChannelRef{1, {}}, 1));
  CHECK(m.pickupTopicRouteData("T")->queueDatas[0].writeQueueNums == 4);
  REQUIRE(m.registerBroker(reg(0, "a:1"), body({"T"}, 2, 2), ChannelRef{1, {}}, 2));
  CHECK(m.pickupTopicRouteData("T")->queueDatas[0].writeQueueNums == 2);
}
