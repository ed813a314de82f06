// GET /metrics against apache/rocketmq-exporter: every metric name its Grafana dashboards query
// (test/integration/data/grafana_metric_names.txt) is scraped from a dev node with traffic, and
// the families added for parity move with real traffic (send sizes, send-backs, group commit).
#include <doctest/doctest.h>

#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "broker_calls.h"
#include "client/consumer/push_consumer.h"
#include "client/message_helpers.h"
#include "client_fixture.h"
#include "common/request_code.h"
#include "dev_node.h"
#include "http_get.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::client;
using namespace std::chrono_literals;

namespace {

std::string scrape(uint16_t port) {
  auto r = httpGet(port, "/metrics");
  REQUIRE(r.status == 200);
  return r.body;
}

// The value of the first sample of `name` whatever its labels (nullopt when it has none).
std::optional<double> firstSample(const std::string& text, const std::string& name) {
  for (const std::string& prefix : {"\n" + name + "{", "\n" + name + " "}) {
    size_t pos = text.find(prefix);
    if (pos == std::string::npos) continue;
    size_t sp = text.find(' ', pos + 1 + name.size());
    if (prefix.back() == '{') sp = text.find("} ", pos) + 1;
    return std::strtod(text.c_str() + sp + 1, nullptr);
  }
  return std::nullopt;
}

struct ListedName {
  std::string name;
  std::string impossibleReason;  // non-empty: listed as impossible for rmqnode
};

std::vector<ListedName> grafanaNames() {
  std::ifstream in(std::string(RMQ_SOURCE_DIR) + "/test/integration/data/grafana_metric_names.txt");
  REQUIRE(in.good());
  std::vector<ListedName> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    ListedName n;
    size_t hash = line.find('#');
    n.name = line.substr(0, line.find_first_of(" \t#"));
    if (hash != std::string::npos) n.impossibleReason = line.substr(hash + 1);
    out.push_back(n);
  }
  return out;
}

// Listed names (not marked impossible) without a sample in `text`.
std::vector<std::string> missingNames(const std::vector<ListedName>& names, const std::string& text) {
  std::vector<std::string> missing;
  for (const auto& n : names)
    if (n.impossibleReason.empty() && !firstSample(text, n.name)) missing.push_back(n.name);
  return missing;
}

net::RemotingCommand sendBackToDlq(int64_t commitLogOffset, const std::string& group, const std::string& topic) {
  return request(RequestCode::CONSUMER_SEND_MSG_BACK, {{"offset", std::to_string(commitLogOffset)},
                                                       {"group", group}, {"delayLevel", "-1"},
                                                       {"originTopic", topic}});
}

}  // namespace

TEST_CASE("exporter parity: every metric name of the exporter's Grafana dashboards is scraped from a busy dev node") {
  auto names = grafanaNames();
  REQUIRE(names.size() > 40);
  DevNode node({.extraBroker = "clientRuntimeInfoInterval = 1000", .http = true});
  REQUIRE(node.start());
  std::string topic = uniqueName("GrafanaT");
  REQUIRE(node.createTopic(topic, 2));
  auto producer = startProducer(producerOptions(node));
  for (int i = 0; i < 20; ++i) REQUIRE_OK(producer->send(makeMessage(topic, "TagA", "", "g" + std::to_string(i))));

  // A consumer that does not answer GET_CONSUMER_RUNNING_INFO (a bare remoting client): online,
  // skipped by the client families. Registered before the push consumer, so every collection
  // round that sees the push consumer asked it too.
  TestClient silent;
  std::string silentGroup = uniqueName("GrafanaSilent");
  REQUIRE(invoke(silent, node.brokerAddr, heartbeatRequest("silent@1", silentGroup, {topic})).code == 0);

  // A push consumer that asks for one redelivery: %RETRY%<group>, send-backs, client running info.
  PushConsumerOptions o = pushOptions(node, uniqueName("GrafanaPush"));
  o.consumeFromWhere = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  o.rebalanceInterval = 2000ms;
  PushConsumer consumer(o);
  REQUIRE(consumer.subscribe(topic, "*").ok());
  std::mutex mu;
  int deliveries = 0;
  consumer.registerListener([&](const std::vector<MessageExt>& msgs, const MessageQueue&) {
    std::lock_guard lk(mu);
    deliveries += static_cast<int>(msgs.size());
    return deliveries == static_cast<int>(msgs.size()) ? ConsumeStatus::RECONSUME_LATER : ConsumeStatus::CONSUME_SUCCESS;
  });
  REQUIRE(consumer.start().ok());

  // A group with lag (committed 1 of queue 0) and a message of it in %DLQ%<group>.
  TestClient c;
  std::string lagGroup = uniqueName("GrafanaLag");
  REQUIRE(invoke(c, node.brokerAddr,
                 request(RequestCode::UPDATE_CONSUMER_OFFSET, {{"consumerGroup", lagGroup}, {"topic", topic},
                                                               {"queueId", "0"}, {"commitOffset", "1"}})).code == 0);
  auto pulled = pullMessages(c, node.brokerAddr, PullSpec{.group = lagGroup, .topic = topic, .queueId = 0});
  REQUIRE(!pulled.empty());
  REQUIRE(invoke(c, node.brokerAddr, sendBackToDlq(pulled[0].commitLogOffset, lagGroup, topic)).code == 0);

  std::string text;
  bool complete = eventually([&] {
    text = scrape(node.httpPort);
    return missingNames(names, text).empty();
  }, 40s);
  for (const auto& name : missingNames(names, text)) MESSAGE("not scraped: " << name);
  CHECK(complete);
  for (const auto& n : names)
    if (!n.impossibleReason.empty()) MESSAGE("skipped (listed impossible): " << n.name << ":" << n.impossibleReason);
  CHECK(metricValueOr0(text, "rocketmq_group_count{caddr=\"\",localaddr=\"\",group=\"" + lagGroup + "\"}") == 0);
  CHECK(text.find(",localaddr=\"silent@1\",group=\"" + silentGroup + "\"} 1\n") != std::string::npos);
  CHECK(text.find("group=\"" + o.group + "\",topic=\"" + topic + "\"}") != std::string::npos);  // client_*
  CHECK(text.find("clientId=\"silent@1\"") == std::string::npos);
  CHECK(metricValue(text, "rocketmq_group_get_latency_by_storetime{" + devBrokerLabels() + ",topic=\"" + topic +
                              "\",group=\"" + lagGroup + "\"}") >= 0);
  consumer.shutdown();
  producer->shutdown();
}

TEST_CASE("exporter parity: message sizes and send-backs move with real traffic") {
  DevNode node({.http = true});
  REQUIRE(node.start());
  TestClient c;
  std::string topic = uniqueName("SizeT");
  createTopic(c, node.brokerAddr, topic, 1);
  auto runtime = [&](const std::string& text, const std::string& suffix) {
    return firstSample(text, "rocketmq_brokeruntime_" + suffix).value_or(-1);
  };
  auto before = scrape(node.httpPort);
  constexpr int N = 12;
  std::vector<SendSpec> sends;
  for (int i = 0; i < N; ++i) sends.push_back(SendSpec{.topic = topic, .body = std::string(100 + i, 'x')});
  sendDispatched(c, node.brokerAddr, sends);
  auto after = scrape(node.httpPort);
  // Java's putMessageSizeTotal: the record bytes the sends wrote, i.e. how far the commit log grew.
  double sizeDelta = runtime(after, "put_message_size_total") - runtime(before, "put_message_size_total");
  double logDelta = runtime(after, "commitlog_maxoffset") - runtime(before, "commitlog_maxoffset");
  CHECK(sizeDelta == logDelta);
  CHECK(sizeDelta > N * 100);
  CHECK(runtime(after, "put_message_average_size") > 100);
  // Bytes per second over the last minute, from the once-a-second sampler.
  std::string sizeSeries = "rocketmq_producer_message_size{" + devBrokerLabels() + ",topic=\"" + topic + "\"}";
  CHECK(eventually([&] { return metricValueOr0(scrape(node.httpPort), sizeSeries) > 0; }, 10s));

  // A consumer group pulls the N messages: consumer_message_size turns positive; one send-back.
  std::string group = uniqueName("SizeG");
  auto pulled = pullMessages(c, node.brokerAddr, PullSpec{.group = group, .topic = topic, .queueId = 0});
  REQUIRE(pulled.size() == static_cast<size_t>(N));
  REQUIRE(invoke(c, node.brokerAddr, sendBackToDlq(pulled[0].commitLogOffset, group, topic)).code == 0);
  REQUIRE(invoke(c, node.brokerAddr,
                 request(RequestCode::UPDATE_CONSUMER_OFFSET, {{"consumerGroup", group}, {"topic", topic},
                                                               {"queueId", "0"}, {"commitOffset", "2"}})).code == 0);
  std::string groupLabels = devBrokerLabels() + ",topic=\"" + topic + "\",group=\"" + group + "\"";
  CHECK(eventually([&] {
    auto text = scrape(node.httpPort);
    return metricValueOr0(text, "rocketmq_consumer_message_size{" + groupLabels + "}") > 0 &&
           metricValueOr0(text, "rocketmq_send_back_nums{" + groupLabels + "}") == 1;
  }, 10s));
  // The oldest unconsumed message (offset 2) has waited at least as long as since its send.
  auto text = scrape(node.httpPort);
  CHECK(metricValueOr0(text, "rocketmq_group_consume_total_offset{" + groupLabels + "}") == 2);
  CHECK(metricValueOr0(text, "rocketmq_group_get_latency_by_storetime{" + groupLabels + "}") >= 0);
}

TEST_CASE("exporter parity: SYNC_FLUSH group commit is a histogram whose batch sizes add up to the sends") {
  DevNode node({.extraStore = "flushDiskType = \"SYNC_FLUSH\"", .http = true});
  REQUIRE(node.start());
  TestClient c;
  std::string topic = uniqueName("FlushT");
  createTopic(c, node.brokerAddr, topic, 1);
  std::string base = "{" + devBrokerLabels() + "}";
  auto before = scrape(node.httpPort);
  constexpr int N = 15;
  for (int i = 0; i < N; ++i) sendOk(c, node.brokerAddr, SendSpec{.topic = topic, .body = "f" + std::to_string(i)});
  std::string after;
  auto delta = [&](const std::string& series) { return metricValueOr0(after, series) - metricValueOr0(before, series); };
  // A flush completes its waiters (their SEND_OK goes out) before it records the batch, so the
  // last batch can reach the histograms just after the last answer: wait for it. A send whose
  // bytes a flush had covered before it came to wait (the 10 ms idle flush between its append
  // and its wait: seen on a loaded box) is in no batch, and counted apart.
  CHECK(eventually([&] {
    after = scrape(node.httpPort);
    return delta("rmqnode_group_commit_batch_size_sum" + base) +
               delta("rmqnode_group_commit_already_flushed_total" + base) == N;
  }, 10s));
  CHECK(after.find("# TYPE rmqnode_group_commit_already_flushed_total counter") != std::string::npos);
  double flushes = delta("rmqnode_group_commit_batch_size_count" + base);
  CHECK(flushes >= 1);
  CHECK(flushes <= N);
  CHECK(delta("rmqnode_group_commit_flush_seconds_count" + base) == flushes);
  CHECK(metricValueOr0(after, "rmqnode_group_commit_flush_seconds_bucket{" + devBrokerLabels() + ",le=\"+Inf\"}") ==
        metricValueOr0(after, "rmqnode_group_commit_flush_seconds_count" + base));
  CHECK(after.find("# TYPE rmqnode_group_commit_batch_size histogram") != std::string::npos);
}

TEST_CASE("exporter parity: a broker asking its consumers for running info stops cleanly with them still connected") {
  DevNode node({.extraBroker = "clientRuntimeInfoInterval = 200", .http = true});
  REQUIRE(node.start());
  std::string topic = uniqueName("StopT");
  REQUIRE(node.createTopic(topic, 1));
  TestClient silent;  // never answers GET_CONSUMER_RUNNING_INFO
  REQUIRE(invoke(silent, node.brokerAddr, heartbeatRequest("silent@2", uniqueName("StopSilent"), {topic})).code == 0);
  PushConsumerOptions o = pushOptions(node, uniqueName("StopPush"));
  PushConsumer consumer(o);
  REQUIRE(consumer.subscribe(topic, "*").ok());
  consumer.registerListener([](const std::vector<MessageExt>&, const MessageQueue&) { return ConsumeStatus::CONSUME_SUCCESS; });
  REQUIRE(consumer.start().ok());
  auto producer = startProducer(producerOptions(node));
  REQUIRE_OK(producer->send(makeMessage(topic, "", "", "x")));
  CHECK(eventually([&] {
    return scrape(node.httpPort).find("rocketmq_client_consumer_pull_tps{") != std::string::npos;
  }, 20s));
  CHECK(node.proc.stop() == 0);  // SIGTERM while rounds (and maybe an unanswered ask) are in flight
  consumer.shutdown();
  producer->shutdown();
}
