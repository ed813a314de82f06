// Many topics (issue 25 §2, §5): a broker holding 100,000 topics registers with compressedRegister
// (the JSON body would pass the 16 MiB frame limit) and its topics are routable; forceRegister=false
// asks QUERY_DATA_VERSION and skips unchanged periodic registrations, registering again once the
// name server lost them; topics answered SUCCESS survive kill -9 once the coalesced write is due.
#include <doctest/doctest.h>

#include <fmt/format.h>

#include "broker_calls.h"
#include "broker_requests.h"
#include "client/client_config.h"
#include "common/request_code.h"
#include "dev_node.h"
#include "node_config.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using rmq::test::tools::describe;
using rmq::test::tools::runTool;

namespace {

std::string manyTopicName(int i) { return fmt::format("ManyTopicsOfOneBroker_{:06}", i); }

// topics.json (as the broker writes it, compact) with `count` topics of 4 queues.
std::string topicsJson(int count) {
  std::string s = "{\"dataVersion\":{\"counter\":1,\"timestamp\":1700000000000},\"topicConfigTable\":{";
  for (int i = 0; i < count; ++i) {
    if (i) s += ',';
    s += fmt::format("\"{0}\":{{\"order\":false,\"perm\":6,\"readQueueNums\":4,\"topicFilterType\":\"SINGLE_TAG\","
                     "\"topicName\":\"{0}\",\"topicSysFlag\":0,\"writeQueueNums\":4}}",
                     manyTopicName(i));
  }
  return s + "}}";
}

int routeCode(TestClient& c, const std::string& namesrv, const std::string& topic) {
  return codeOf(c.call(namesrv, request(RequestCode::GET_ROUTEINFO_BY_TOPIC, {{"topic", topic}})));
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("many topics: compressedRegister registers 100,000 topics and the name server routes them") {
  DevNode node({.extraBroker = "compressedRegister = true\n"});
  node.proc.writeFile("store/config/topics.json", topicsJson(100000));
  REQUIRE_MESSAGE(node.start(), node.proc.stderrText());
  TestClient c;
  for (int i : {0, 54321, 99999}) CHECK(routeCode(c, node.namesrvAddr, manyTopicName(i)) == 0);
  auto topics = c.call(node.namesrvAddr, request(RequestCode::GET_ALL_TOPIC_LIST_FROM_NAMESERVER));
  REQUIRE(codeOf(topics) == 0);
  CHECK(count(topics->body, "ManyTopicsOfOneBroker_") == 100000);
  // A topic created now reaches the name server with the answer (the increment, compressed too).
  REQUIRE(invoke(c, node.brokerAddr, createTopicRequest("ManyTopicsLatecomer", 2)).code == 0);
  CHECK(routeCode(c, node.namesrvAddr, "ManyTopicsLatecomer") == 0);
  CHECK(node.brokerLog().find("refused") == std::string::npos);
}

TEST_CASE("many topics: forceRegister=false skips unchanged registrations, registers when the name server lost them") {
  NodeProcess ns, broker;
  uint16_t nsPort = freePort(), brokerPort = freeBrokerPort();
  ns.writeFile("ns.toml", namesrvToml(ns, nsPort));
  ns.setArgs({"--role=namesrv", "-c", ns.path("ns.toml")});
  ns.waitForPorts({nsPort});
  REQUIRE(ns.start());
  std::string namesrv = "127.0.0.1:" + std::to_string(nsPort);
  BrokerToml b;
  b.port = brokerPort;
  b.namesrvAddr = namesrv;
  b.extraBroker = "forceRegister = false\nregisterNameServerPeriod = 10000\n";
  broker.writeFile("broker.toml", logDirToml(broker) + brokerToml(broker, b));
  broker.setArgs({"--role=master", "-c", broker.path("broker.toml")});
  broker.waitForPorts({brokerPort});
  REQUIRE(broker.start());
  std::string brokerAddr = "127.0.0.1:" + std::to_string(brokerPort);
  TestClient c;
  REQUIRE(invoke(c, brokerAddr, createTopicRequest("SkipTopic", 2)).code == 0);
  REQUIRE(routeCode(c, namesrv, "SkipTopic") == 0);

  // The periodic round (10 s) asks QUERY_DATA_VERSION; the name server holds the version the
  // increment carried, so nothing is re-sent.
  const std::string skipped = "registration skipped: every name server holds data version";
  REQUIRE(eventually([&] { return broker.log("broker.log").find(skipped) != std::string::npos; }, std::chrono::seconds(25)));
  CHECK(routeCode(c, namesrv, "SkipTopic") == 0);

  // A restarted name server knows no version: the next round registers the whole table again.
  ns.stop();
  REQUIRE(ns.start());
  CHECK(routeCode(c, namesrv, "SkipTopic") != 0);
  size_t skipsBefore = count(broker.log("broker.log"), skipped);
  CHECK(eventually([&] { return routeCode(c, namesrv, "SkipTopic") == 0; }, std::chrono::seconds(25)));
  CHECK(count(broker.log("broker.log"), skipped) == skipsBefore);  // that round registered, it did not skip
}

// The guarantee (broker README "Topic table durability"): a topic answered SUCCESS is in the
// fsync'd topics.json within kMetadataPersistDelay (100 ms) plus one write of the table; a burst
// of creations shares writes. Checked here with a 1 s bound, then kill -9 and a restart.
TEST_CASE("many topics: created topics survive kill -9 once the coalesced write is due") {
  DevNode node;
  REQUIRE_MESSAGE(node.start(), node.proc.stderrText());
  TestClient c;
  const int n = 500;
  for (int i = 0; i < n; ++i) REQUIRE(invoke(c, node.brokerAddr, createTopicRequest(fmt::format("Durable_{:04}", i), 2)).code == 0);
  auto inFile = [&] {
    std::string text = node.proc.readFile("store/config/topics.json");
    return count(text, "\"topicName\":\"Durable_") == static_cast<size_t>(n);
  };
  CHECK(eventually(inFile, std::chrono::seconds(1)));
  node.proc.kill();
  REQUIRE_MESSAGE(node.restart(), node.proc.stderrText());
  auto all = parseBody(invoke(c, node.brokerAddr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  for (int i : {0, n / 2, n - 1}) CHECK(all["topicConfigTable"].HasMember(fmt::format("Durable_{:04}", i).c_str()));
  int durable = 0;
  for (auto& m : all["topicConfigTable"].GetObject()) durable += std::string(m.name.GetString()).rfind("Durable_", 0) == 0;
  CHECK(durable == n);
}

TEST_CASE("many topics: rmqbench topics creates, reports per block and every topic is routable") {
  DevNode node;
  REQUIRE_MESSAGE(node.start(), node.proc.stderrText());
  auto r = runTool(RMQBENCH_BIN, {"topics", "-n", node.namesrvAddr, "-b", node.brokerAddr, "--count", "300", "--every",
                                  "100", "-q", "2", "--prefix", "BenchCreated_"},
                   std::chrono::seconds(60));
  REQUIRE_MESSAGE(r.exitCode == 0, describe(r));
  CHECK(count(r.out, "creations/s, last one routed by the name server") == 3);
  CHECK(r.out.find("topics     201..300") != std::string::npos);
  CHECK(r.out.find("total: 300 topics") != std::string::npos);
  CHECK(r.out.find(", 0 failed") != std::string::npos);
  TestClient c;
  for (int i : {1, 150, 300}) CHECK(routeCode(c, node.namesrvAddr, fmt::format("BenchCreated_{:06}", i)) == 0);
  CHECK(runTool(RMQBENCH_BIN, {"topics", "-n", node.namesrvAddr}).exitCode == 2);  // -b missing
}
