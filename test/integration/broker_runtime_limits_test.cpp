// Issue 10: the connection limit keys (maxFrameSize, serverChannelMaxIdleTimeSeconds, ...) take
// effect at run time when changed with UPDATE_BROKER_CONFIG (code 25, `rmqadmin updateBrokerConfig`):
// a frame over the lowered maxFrameSize closes its connection, connections opened before and after
// the change keep serving, and raising it back lets the big frame through again. No restart.
#include <doctest/doctest.h>

#include <thread>

#include "broker_calls.h"
#include "common/request_code.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

bool logShows(const DevNode& node, const std::string& text) {
  for (int i = 0; i < 50; ++i, std::this_thread::sleep_for(100ms))
    if (node.brokerLog().find(text) != std::string::npos) return true;
  return false;
}

net::RemotingCommand updateConfig(TestClient& c, const std::string& addr, const std::string& properties) {
  return invoke(c, addr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, properties));
}

}  // namespace

TEST_CASE("broker: UPDATE_BROKER_CONFIG maxFrameSize applies at run time; other connections keep serving") {
  DevNode node;
  REQUIRE(node.start());
  const std::string topic = uniqueName("Limits");
  TestClient admin, before;  // `before`: a connection open across the change
  createTopic(admin, node.brokerAddr, topic, 4);
  const std::string big(200 * 1024, 'b');
  sendOk(before, node.brokerAddr, {.topic = topic, .body = big});  // the 16 MiB default takes it

  REQUIRE(updateConfig(admin, node.brokerAddr, "maxFrameSize=65536\n").code == 0);
  auto config = invoke(admin, node.brokerAddr, request(RequestCode::GET_BROKER_CONFIG, {}));
  CHECK(bodyOf(config).find("maxFrameSize=65536\n") != std::string::npos);

  // The open connection's next big frame is refused: the broker closes that connection.
  auto refused = before.call(node.brokerAddr, sendRequest({.topic = topic, .body = big}), 5s);
  CHECK(codeOf(refused) == -1000);
  CHECK(logShows(node, "(max 65536)"));
  // Small frames on the same client (it reconnects), on the admin's open connection and on a new one.
  sendOk(before, node.brokerAddr, {.topic = topic, .body = "small after the change"});
  sendOk(admin, node.brokerAddr, {.topic = topic, .body = "admin still served"});
  TestClient fresh;
  sendOk(fresh, node.brokerAddr, {.topic = topic, .body = "new connection served"});
  CHECK(codeOf(fresh.call(node.brokerAddr, sendRequest({.topic = topic, .body = big}), 5s)) == -1000);

  // Raised again: the same big frame passes, still without a restart.
  REQUIRE(updateConfig(admin, node.brokerAddr, "maxFrameSize=16777216\n").code == 0);
  sendOk(fresh, node.brokerAddr, {.topic = topic, .body = big});
  CHECK(node.proc.stop() == 0);
}

TEST_CASE("name server: UPDATE_NAMESRV_CONFIG maxFrameSize applies at run time") {
  DevNode node;
  REQUIRE(node.start());
  const std::string topic = uniqueName("NsLimits");
  REQUIRE(node.createTopic(topic, 2));
  auto routeWithBody = [&](size_t bodySize) {
    return request(RequestCode::GET_ROUTEINFO_BY_TOPIC, {{"topic", topic}}, std::string(bodySize, 'x'));
  };
  TestClient c;
  CHECK(codeOf(c.call(node.namesrvAddr, routeWithBody(200 * 1024), 5s)) == 0);  // the default takes it
  auto update = c.call(node.namesrvAddr, RequestCode::UPDATE_NAMESRV_CONFIG, {}, "maxFrameSize=65536\n");
  REQUIRE(codeOf(update) == 0);
  CHECK(codeOf(c.call(node.namesrvAddr, routeWithBody(200 * 1024), 5s)) == -1000);  // closed
  CHECK(codeOf(c.call(node.namesrvAddr, routeWithBody(1024), 5s)) == 0);             // reconnected, served
  CHECK(codeOf(c.call(node.brokerAddr, RequestCode::GET_BROKER_CONFIG)) == 0);  // the broker's limit is its own
  auto brokerConfig = c.call(node.brokerAddr, RequestCode::GET_BROKER_CONFIG);
  REQUIRE(brokerConfig);
  CHECK(bodyOf(*brokerConfig).find("maxFrameSize=16777216\n") != std::string::npos);
  CHECK(node.proc.stop() == 0);
}
