// Heartbeats, consumer lists, NOTIFY_CONSUMER_IDS_CHANGED pushes and retry-topic creation.
#include <doctest/doctest.h>

#include <atomic>

#include "broker_calls.h"
#include "client/request_headers.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "namesrv_client.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

// Counts NOTIFY_CONSUMER_IDS_CHANGED pushes received by a client.
struct NotifyCounter {
  std::atomic<int> count{0};
  std::atomic<bool> json{true};
  void attach(TestClient& c) {
    c.raw().dispatcher().registerProcessor(
        RequestCode::NOTIFY_CONSUMER_IDS_CHANGED,
        [this](net::ConnectionPtr, net::RemotingCommand req) -> asio::awaitable<std::optional<net::RemotingCommand>> {
          if (req.serializeType != net::SerializeType::Json) json = false;
          if (req.extFields.get("consumerGroup") == "grp") ++count;
          co_return std::nullopt;
        });
  }
};

std::vector<std::string> consumerIds(TestClient& c, const std::string& addr, const std::string& group) {
  auto r = c.call(addr, client::makeConsumerListRequest(group));
  if (!r.ok() || r->code != ResponseCode::SUCCESS) return {};
  auto doc = parseJson(r->body);
  std::vector<std::string> ids;
  for (auto& v : doc["consumerIdList"].GetArray()) ids.emplace_back(v.GetString());
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

TEST_CASE("broker heartbeat: version >= 232, consumer list, notify on join/leave, retry topic routed") {
  DevNode node;
  REQUIRE(node.start());
  auto addr = node.brokerAddr;
  TestClient a, b;
  NotifyCounter na, nb;
  na.attach(a);
  nb.attach(b);

  auto none = a.call(addr, client::makeConsumerListRequest("grp"));
  REQUIRE(none.ok());
  CHECK(none->code == ResponseCode::SYSTEM_ERROR);  // no consumer for this group

  auto hbA = a.call(addr, heartbeatRequest("clientA", "grp", {"HbT"}, {"pgA"}));
  REQUIRE(hbA.ok());
  CHECK(hbA->code == ResponseCode::SUCCESS);
  CHECK(hbA->version >= 232);
  CHECK(consumerIds(a, addr, "grp") == std::vector<std::string>{"clientA"});
  CHECK(eventually([&] { return na.count >= 1; }, 3s));

  int before = na.count;
  REQUIRE(b.call(addr, heartbeatRequest("clientB", "grp", {"HbT"})).ok());
  CHECK(consumerIds(a, addr, "grp") == std::vector<std::string>{"clientA", "clientB"});
  CHECK(eventually([&] { return na.count > before && nb.count >= 1; }, 3s));
  CHECK(na.json);

  // Pulls without a subscription in the request use the heartbeat's.
  sendDispatched(a, addr, {{.topic = "HbT"}});
  auto p = a.call(addr, pullRequest({.group = "grp", .topic = "HbT", .sysFlag = 0}));
  REQUIRE(p.ok());
  CHECK(p->code == ResponseCode::SUCCESS);

  // B leaves (unregister): A is told, list shrinks.
  before = na.count;
  REQUIRE(b.call(addr, client::makeUnregisterClient("clientB", "", "grp")).ok());
  CHECK(consumerIds(a, addr, "grp") == std::vector<std::string>{"clientA"});
  CHECK(eventually([&] { return na.count > before; }, 3s));

  // B rejoins then disconnects: A is told again.
  before = na.count;
  REQUIRE(b.call(addr, heartbeatRequest("clientB", "grp", {"HbT"})).ok());
  CHECK(eventually([&] { return na.count > before; }, 3s));  // the rejoin's notify, before counting the leave's
  before = na.count;
  b.raw().closeConnection(addr);
  CHECK(eventually([&] { return consumerIds(a, addr, "grp") == std::vector<std::string>{"clientA"}; }, 5s));
  // The broker pushes the notify after it changed the list: the list can be read first.
  CHECK(eventually([&] { return na.count > before; }, 3s));

  // The heartbeat created %RETRY%grp and the broker re-registered it with the name server.
  CHECK(eventually([&] {
    auto r = a.call(node.namesrvAddr, client::makeRouteRequest("%RETRY%grp"));
    return r.ok() && r->code == ResponseCode::SUCCESS;
  }, 10s));
}

TEST_CASE("broker send to %RETRY% beyond max reconsume times lands in %DLQ%") {
  DevNode node;
  REQUIRE(node.start());
  auto addr = node.brokerAddr;
  TestClient c;
  REQUIRE(c.call(addr, heartbeatRequest("cid", "rg", {"RtT"})).ok());
  auto retry = c.call(addr, sendRequest({.topic = "%RETRY%rg", .body = "again", .reconsumeTimes = 1, .maxReconsumeTimes = 3}));
  REQUIRE(retry.ok());
  CHECK(retry->code == ResponseCode::SUCCESS);
  auto dead = c.call(addr, sendRequest({.topic = "%RETRY%rg", .body = "dead", .reconsumeTimes = 3, .maxReconsumeTimes = 3}));
  REQUIRE(dead.ok());
  CHECK(dead->code == ResponseCode::SUCCESS);
  REQUIRE(dispatched(c, addr, "%DLQ%rg", 0, 1));
  auto dlq = c.call(addr, pullRequest({.group = "x", .topic = "%DLQ%rg"}));
  REQUIRE(dlq.ok());
  REQUIRE(dlq->code == ResponseCode::SUCCESS);
  auto msgs = pulledMessages(*dlq);
  REQUIRE(msgs.size() == 1);
  CHECK(msgs[0].body == "dead");
  REQUIRE(dispatched(c, addr, "%RETRY%rg", 0, 1));
  auto r = c.call(addr, pullRequest({.group = "x", .topic = "%RETRY%rg"}));
  REQUIRE_OK(r);
  REQUIRE(r->code == ResponseCode::SUCCESS);
  CHECK(pulledMessages(*r).at(0).body == "again");
}

TEST_CASE("broker expires a client that stops heartbeating and closes its connection") {
  DevNode node({.extraBroker = "channelExpiredTimeout = 1000"});
  REQUIRE(node.start());
  auto addr = node.brokerAddr;
  TestClient silent, observer;
  NotifyCounter seen;
  seen.attach(observer);
  REQUIRE(silent.call(addr, heartbeatRequest("silent", "grp", {"ExpT"})).ok());
  // The observer keeps heartbeating; the silent client does not.
  REQUIRE(observer.call(addr, heartbeatRequest("observer", "grp", {"ExpT"})).ok());
  int before = seen.count;
  bool expired = eventually([&] {
    observer.call(addr, heartbeatRequest("observer", "grp", {"ExpT"}));
    return consumerIds(observer, addr, "grp") == std::vector<std::string>{"observer"};
  }, 10s);
  CHECK(expired);
  CHECK(seen.count > before);  // the group was told
  CHECK(node.brokerLog().find("expired") != std::string::npos);
}
