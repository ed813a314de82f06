// The node's HTTP endpoint against real rmqnode processes: /metrics counters move with real
// sends, rocketmq_group_diff is the real backlog, /readyz turns ready when a name server appears,
// the dev node's default port.
#include <doctest/doctest.h>

#include <future>
#include <string>

#include "broker_calls.h"
#include "common/request_code.h"
#include "dev_node.h"
#include "http_get.h"
#include "node_config.h"
#include "node_process.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

std::string scrape(uint16_t port) {
  auto r = httpGet(port, "/metrics");
  REQUIRE(r.status == 200);
  REQUIRE(r.headers.find("Content-Type: text/plain; version=0.0.4") != std::string::npos);
  return r.body;
}

// Sum of _count of the send request codes' latency histograms.
double sendCount(const std::string& text) {
  double n = 0;
  for (auto [code, name] : {std::pair<int, const char*>{10, "SEND_MESSAGE"}, {310, "SEND_MESSAGE_V2"}})
    n += metricValueOr0(text, "rmqnode_request_duration_seconds_count{" + devBrokerLabels() + ",code=\"" +
                            std::to_string(code) + "\",request=\"" + name + "\"}");
  return n;
}

// Sum of rocketmq_brokeruntime_pmdt_* (sends per latency range, Java's putMessageDistributeTime).
double pmdtTotal(const std::string& text) {
  double n = 0;
  size_t pos = 0;
  while ((pos = text.find("\nrocketmq_brokeruntime_pmdt_", pos)) != std::string::npos) {
    size_t sp = text.find("} ", pos);
    n += std::strtod(text.c_str() + sp + 2, nullptr);
    pos = sp;
  }
  return n;
}

}  // namespace

TEST_CASE("http endpoint: /healthz, /readyz, 404 and /metrics of a dev node") {
  DevNode node({.http = true});
  REQUIRE(node.start());
  CHECK(httpGet(node.httpPort, "/healthz").status == 200);
  HttpReply ready;
  REQUIRE(eventually([&] { return (ready = httpGet(node.httpPort, "/readyz")).status == 200; }, 15s));
  CHECK(ready.body.find("namesrv: ready") != std::string::npos);
  CHECK(ready.body.find("broker: ready") != std::string::npos);
  CHECK(httpGet(node.httpPort, "/no/such/path").status == 404);
  auto text = scrape(node.httpPort);
  CHECK(metricValueOr0(text, "process_resident_memory_bytes") > 0);
  CHECK(metricValue(text, "rmqnode_namesrv_live_brokers") == 1);
  CHECK(text.find("# TYPE rmqnode_request_duration_seconds histogram") != std::string::npos);
  CHECK(text.find("# TYPE rocketmq_group_diff gauge") != std::string::npos);
  CHECK(text.find("rocketmq_brokeruntime_commitlog_disk_ratio{cluster=\"DefaultCluster\",brokerIP=\"" +
                  node.brokerAddr + "\",brokerHost=\"broker-a\"") != std::string::npos);
}

TEST_CASE("http endpoint: /metrics before and after N sends: the counters moved by N") {
  DevNode node({.http = true});
  REQUIRE(node.start());
  TestClient c;
  std::string topic = uniqueName("MetricsT");
  createTopic(c, node.brokerAddr, topic, 2);
  constexpr int N = 25;
  std::string offsetSeries = "rocketmq_producer_offset{" + devBrokerLabels() + ",topic=\"" + topic + "\"}";
  std::string storedSeries = "rmqnode_messages_stored_total{" + devBrokerLabels() + "}";

  auto before = scrape(node.httpPort);
  double offset0 = metricValueOr0(before, offsetSeries);
  double stored0 = metricValueOr0(before, storedSeries);
  double sends0 = sendCount(before);
  double pmdt0 = pmdtTotal(before);
  double written0 = metricValueOr0(before, "rmqnode_commitlog_write_bytes_total{" + devBrokerLabels() + "}");

  std::vector<SendSpec> sends;
  for (int i = 0; i < N; ++i)
    sends.push_back(SendSpec{.topic = topic, .body = "m" + std::to_string(i), .queueId = i % 2, .code = i % 3 ? 310 : 10});
  sendDispatched(c, node.brokerAddr, sends);

  auto after = scrape(node.httpPort);
  CHECK(metricValueOr0(after, offsetSeries) - offset0 == N);
  CHECK(metricValueOr0(after, storedSeries) - stored0 == N);
  CHECK(sendCount(after) - sends0 == N);
  CHECK(pmdtTotal(after) - pmdt0 == N);
  CHECK(metricValueOr0(after, "rmqnode_commitlog_write_bytes_total{" + devBrokerLabels() + "}") - written0 > N * 50);
  // The histogram is consistent: its +Inf bucket is its count.
  std::string v2 = devBrokerLabels() + ",code=\"310\",request=\"SEND_MESSAGE_V2\"";
  CHECK(metricValue(after, "rmqnode_request_duration_seconds_bucket{" + v2 + ",le=\"+Inf\"}") ==
        metricValue(after, "rmqnode_request_duration_seconds_count{" + v2 + "}"));
  // producer TPS comes from the once-a-second sampler: it turns positive within a few samples.
  std::string tpsSeries = "rocketmq_producer_tps{" + devBrokerLabels() + ",topic=\"" + topic + "\"}";
  CHECK(eventually([&] { return metricValueOr0(scrape(node.httpPort), tpsSeries) > 0; }, 10s));
}

TEST_CASE("http endpoint: rocketmq_group_diff equals the real backlog of a consumer group") {
  DevNode node({.http = true});
  REQUIRE(node.start());
  TestClient c;
  std::string topic = uniqueName("LagT");
  std::string group = uniqueName("LagG");
  createTopic(c, node.brokerAddr, topic, 3);
  std::vector<SendSpec> sends;
  for (int i = 0; i < 30; ++i) sends.push_back(SendSpec{.topic = topic, .body = "b" + std::to_string(i), .queueId = i % 3});
  sendDispatched(c, node.brokerAddr, sends);  // 10 per queue
  // The group consumed 3 of queue 0 and 7 of queue 1; queue 2 not at all.
  for (auto [q, off] : {std::pair<int, int64_t>{0, 3}, {1, 7}}) {
    REQUIRE(invoke(c, node.brokerAddr,
                   request(RequestCode::UPDATE_CONSUMER_OFFSET, {{"consumerGroup", group}, {"topic", topic},
                                                                 {"queueId", std::to_string(q)},
                                                                 {"commitOffset", std::to_string(off)}})).code == 0);
  }
  // The real backlog: what a pull from the committed offsets still returns.
  int64_t backlog = 0;
  for (int q = 0; q < 3; ++q) {
    int64_t committed = q == 0 ? 3 : q == 1 ? 7 : 0;
    auto msgs = pullMessages(c, node.brokerAddr, PullSpec{.group = group, .topic = topic, .queueId = q, .offset = committed});
    backlog += static_cast<int64_t>(msgs.size());
  }
  REQUIRE(backlog == 20);

  auto text = scrape(node.httpPort);
  std::string diffSeries = "rocketmq_group_diff{group=\"" + group + "\",topic=\"" + topic +
                           "\",countOfOnlineConsumers=\"0\",msgModel=\"1\"}";
  CHECK(metricValue(text, diffSeries) == backlog);
  CHECK(metricValue(text, "rocketmq_consumer_offset{" + devBrokerLabels() + ",topic=\"" + topic + "\",group=\"" + group +
                              "\"}") == 10);
}

TEST_CASE("http endpoint: a broker's /readyz is 503 until a name server accepts its registration") {
  uint16_t nsPort = freePort();
  uint16_t brokerPort = freeBrokerPort();
  uint16_t httpPort = freePort();
  NodeProcess broker;
  broker.writeFile("node.toml", logDirToml(broker, httpPort) +
                                    brokerToml(broker, {.port = brokerPort,
                                                        .namesrvAddr = "127.0.0.1:" + std::to_string(nsPort),
                                                        .extraBroker = "registerNameServerPeriod = 10000\n"}));
  broker.setArgs({"--role=master", "-c", broker.path("node.toml")});
  broker.waitForPorts({brokerPort, httpPort});
  REQUIRE(broker.start());
  // The HTTP port opens while the store may still be recovering ("starting"); then it must say
  // why it is not ready, for as long as no name server answers.
  HttpReply notReady;
  CHECK(eventually([&] {
    notReady = httpGet(httpPort, "/readyz");
    return notReady.body.find("store recovery") == std::string::npos;
  }, 10s));
  CHECK(notReady.status == 503);
  CHECK(notReady.body.find("broker: not registered with a name server yet") != std::string::npos);
  CHECK(httpGet(httpPort, "/healthz").status == 200);  // alive all the same

  NodeProcess ns;
  ns.writeFile("node.toml", namesrvToml(ns, nsPort));
  ns.setArgs({"--role=namesrv", "-c", ns.path("node.toml")});
  ns.waitForPorts({nsPort});
  REQUIRE(ns.start());
  CHECK(eventually([&] { return httpGet(httpPort, "/readyz").status == 200; }, 30s));
}

TEST_CASE("http endpoint: the dev node defaults to 8080, other roles to off; an explicit port is kept") {
  NodeProcess p;
  p.writeFile("dev.toml", "logDir = \"" + p.path("logs") + "\"\n");
  auto dev = p.run({"--role=namesrv,master", "-c", p.path("dev.toml"), "--print-config"});
  REQUIRE(dev.exitCode == 0);
  CHECK(dev.out.find("httpListenPort = 8080") != std::string::npos);
  auto ns = p.run({"--role=namesrv", "-c", p.path("dev.toml"), "--print-config"});
  REQUIRE(ns.exitCode == 0);
  CHECK(ns.out.find("httpListenPort = 0") != std::string::npos);
  p.writeFile("set.toml", "httpListenPort = 0\n");
  auto off = p.run({"--role=namesrv,master", "-c", p.path("set.toml"), "--print-config"});
  REQUIRE(off.exitCode == 0);
  CHECK(off.out.find("httpListenPort = 0") != std::string::npos);
  p.writeFile("bad.toml", "httpListenPort = 70000\n");
  auto bad = p.run({"--role=namesrv", "-c", p.path("bad.toml"), "--print-config"});
  CHECK(bad.exitCode == 2);
  CHECK(bad.err.find("httpListenPort") != std::string::npos);
}

TEST_CASE("http endpoint: a parked long poll shows in rmqnode_pull_parked and the pull histogram counts it") {
  DevNode node({.http = true});
  REQUIRE(node.start());
  TestClient consumer, producer;
  std::string topic = uniqueName("ParkT");
  sendDispatched(producer, node.brokerAddr, {{.topic = topic}});  // creates the topic
  std::string parkedSeries = "rmqnode_pull_parked{" + devBrokerLabels() + "}";
  std::string pulls = "rmqnode_request_duration_seconds_count{" + devBrokerLabels() + ",code=\"11\",request=\"PULL_MESSAGE\"}";
  CHECK(metricValue(scrape(node.httpPort), parkedSeries) == 0);
  double pulls0 = metricValueOr0(scrape(node.httpPort), pulls);

  auto parked = std::async(std::launch::async, [&] {
    return consumer.call(node.brokerAddr,
                         pullRequest({.topic = topic, .offset = 1, .sysFlag = 0x4 | 0x2, .suspendMillis = 15000}), 30s);
  });
  CHECK(eventually([&] { return metricValue(scrape(node.httpPort), parkedSeries) == 1; }, 10s));
  REQUIRE(producer.call(node.brokerAddr, sendRequest({.topic = topic, .body = "wake"})).ok());
  REQUIRE(parked.wait_for(10s) == std::future_status::ready);
  REQUIRE(parked.get().ok());
  auto text = scrape(node.httpPort);
  CHECK(metricValue(text, parkedSeries) == 0);
  CHECK(metricValueOr0(text, pulls) - pulls0 == 1);
}
