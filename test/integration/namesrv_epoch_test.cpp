// Name server over real sockets: failover epochs (dataVersion.stateVersion) in REGISTER_BROKER.
// A newer master takes its group over at once, a master of an older epoch is refused and changes
// no route, the old master comes back as a slave.
#include <doctest/doctest.h>

#include <map>

#include "common/request_code.h"
#include "common/response_code.h"
#include "namesrv_client.h"
#include "node_process.h"

using namespace rmq;
using namespace rmq::test;
namespace RC = rmq::RequestCode;

namespace {

constexpr const char* kA = "127.0.0.1:30911";
constexpr const char* kB = "127.0.0.1:31911";

// brokerAddrs of `topic`'s only broker group in the name server's route; empty without a route.
std::map<std::string, std::string> routeAddrs(TestClient& c, const std::string& ns, const std::string& topic) {
  std::map<std::string, std::string> out;
  auto r = c.call(ns, RC::GET_ROUTEINFO_BY_TOPIC, {{"topic", topic}}, {}, 401);
  if (!r || r->code != 0) return out;
  auto doc = parseJson(r->body);
  if (!doc.IsObject() || doc["brokerDatas"].Size() != 1) return out;
  for (auto& m : doc["brokerDatas"][0]["brokerAddrs"].GetObject()) out[m.name.GetString()] = m.value.GetString();
  return out;
}

int writeQueues(TestClient& c, const std::string& ns, const std::string& topic) {
  auto r = c.call(ns, RC::GET_ROUTEINFO_BY_TOPIC, {{"topic", topic}}, {}, 401);
  if (!r || r->code != 0) return -1;
  auto doc = parseJson(r->body);
  return doc["queueDatas"][0]["writeQueueNums"].GetInt();
}

}  // namespace

TEST_CASE("namesrv epoch: a newer master replaces the old one at once; a stale master is refused") {
  Namesrv ns;
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  TestClient c;
  using Addrs = std::map<std::string, std::string>;

  REQUIRE(codeOf(c.call(ns.addr, registerRequest("c1", "g", 0, kA, registerBody(1, {"FoTopic:4"}, 3)))) == 0);
  auto slave = c.call(ns.addr, registerRequest("c1", "g", 1, kB, registerBody(1, {"FoTopic:4"}, 3)));
  REQUIRE(codeOf(slave) == 0);
  CHECK(slave->extFields.get("masterAddr") == kA);
  CHECK(routeAddrs(c, ns.addr, "FoTopic") == Addrs{{"0", kA}, {"1", kB}});

  // B was elected (epoch 4): it leaves id 1 and holds id 0, with its own topics.
  auto won = c.call(ns.addr, registerRequest("c1", "g", 0, kB, registerBody(2, {"FoTopic:8"}, 4)));
  REQUIRE(codeOf(won) == 0);
  CHECK_FALSE(won->extFields.contains("masterAddr"));
  CHECK(routeAddrs(c, ns.addr, "FoTopic") == Addrs{{"0", kB}});
  CHECK(writeQueues(c, ns.addr, "FoTopic") == 8);

  // A, still believing it is master (epoch 3), registers again with other topics: refused.
  auto stale = c.call(ns.addr, registerRequest("c1", "g", 0, kA, registerBody(5, {"FoTopic:2", "StaleOnly:1"}, 3)));
  REQUIRE(stale);
  CHECK(stale->code == ResponseCode::SYSTEM_ERROR);
  std::string remark = stale->remark.value_or("");
  CHECK(remark.find("c1/g") != std::string::npos);
  CHECK(remark.find("epoch 4") != std::string::npos);
  CHECK(remark.find("epoch 3") != std::string::npos);
  CHECK(remark.find(kA) != std::string::npos);
  CHECK(routeAddrs(c, ns.addr, "FoTopic") == Addrs{{"0", kB}});
  CHECK(writeQueues(c, ns.addr, "FoTopic") == 8);
  CHECK(codeOf(c.call(ns.addr, RC::GET_ROUTEINFO_BY_TOPIC, {{"topic", "StaleOnly"}})) == ResponseCode::TOPIC_NOT_EXIST);
  CHECK(eventually([&] { return ns.node.log("namesrv.log").find("refused: stale epoch") != std::string::npos; },
                   std::chrono::seconds(5)));

  // A, demoted, registers as a slave of epoch 4: accepted, told its new master.
  auto demoted = c.call(ns.addr, registerRequest("c1", "g", 1, kA, registerBody(5, {}, 4)));
  REQUIRE(codeOf(demoted) == 0);
  CHECK(demoted->extFields.get("masterAddr") == kB);
  CHECK(routeAddrs(c, ns.addr, "FoTopic") == Addrs{{"0", kB}, {"1", kA}});

  // Without stateVersion (a Java 4.x broker) nothing is fenced: the last master registration wins.
  REQUIRE(codeOf(c.call(ns.addr, registerRequest("c1", "h", 0, "127.0.0.1:32911", registerBody(1, {"H:4"})))) == 0);
  REQUIRE(codeOf(c.call(ns.addr, registerRequest("c1", "h", 0, "127.0.0.1:33911", registerBody(1, {"H:4"})))) == 0);
  REQUIRE(codeOf(c.call(ns.addr, registerRequest("c1", "h", 0, "127.0.0.1:32911", registerBody(1, {"H:4"})))) == 0);
  CHECK(routeAddrs(c, ns.addr, "H") == Addrs{{"0", "127.0.0.1:32911"}});
}
