// rmqadmin's producer, queryMsgTraceById, exportMetrics and startMonitoring (mqadmin 4.9.8's
// ProducerSubCommand, QueryMsgTraceByIdSubCommand, ExportMetricsCommand, StartMonitoringSubCommand)
// against a real rmqnode, rmqadmin run as a process; text and JSON output and the files written checked.
#include <doctest/doctest.h>

#include <atomic>
#include <sstream>
#include <thread>

#include "client/message_helpers.h"
#include "client/trace_data.h"
#include "client_fixture.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::test::tools;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("rmqadmin producer: every producer group of a broker with its instances (GET_ALL_PRODUCER_INFO)") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("ProdInfoTopic");
  std::string group = uniqueName("ProdInfoPG");
  REQUIRE(node.createTopic(topic, 1));
  auto producer = startProducer(producerOptions(node, group));
  sendBodies(*producer, topic, "p-", 1);  // the producer now knows the broker and heartbeats to it

  RunResult text;
  REQUIRE(eventually([&] {
    text = admin(node, "producer", {"-b", node.brokerAddr});
    return text.exitCode == 0 && contains(text.out, "producer group (" + group + ") instance : ");
  }, std::chrono::seconds(20)));
  std::string line;
  for (auto& l : linesOf(text.out))
    if (contains(l, "(" + group + ")")) line = l;
  // ProducerInfo.toString(); remoteIP as Netty prints the channel's address.
  CHECK(contains(line, " instance : clientId="));
  CHECK(contains(line, ",remoteIP=/127.0.0.1:"));
  CHECK(contains(line, ", language=CPP, version=407, lastUpdateTimestamp="));

  auto doc = adminJson(node, "producer", {"-b", node.brokerAddr});
  bool found = false;
  for (auto& row : rows(doc, "producers").GetArray()) {
    if (str(row, "#ProducerGroup") != group) continue;
    found = true;
    CHECK(str(row, "#RemoteIP").rfind("/127.0.0.1:", 0) == 0);
    CHECK(str(row, "#Language") == "CPP");
    CHECK(num(row, "#Version") == 407);
    CHECK(num(row, "#LastUpdateTimestamp") > 0);
    CHECK(!str(row, "#ClientId").empty());
  }
  CHECK(found);
  producer->shutdown();

  CHECK(admin(node, "producer").exitCode == 2);                             // -b is required
  CHECK(admin(node, "producer", {"-b", "127.0.0.1:1"}).exitCode == 1);      // nobody there
}

TEST_CASE("rmqadmin queryMsgTraceById: trace records in Java's format found by message id and printed") {
  DevNode node({.extraBroker = "traceTopicEnable = true"});
  REQUIRE(node.start());
  std::string topic = uniqueName("TracedTopic");
  std::string customTrace = uniqueName("MyTraceTopic");
  REQUIRE(node.createTopic(topic, 1));
  REQUIRE(node.createTopic(customTrace, 1));
  auto producer = startProducer(producerOptions(node));
  auto sent = sendBodies(*producer, topic, "traced-", 1, "TagA", "k");
  const std::string msgId = sent[0].msgId;

  // What a Java client with tracing on sends: Pub, SubBefore and SubAfter records of msgId (and
  // one of another message in the same batch), keys = the msgIds and their keys.
  using client::trace::TraceRecord;
  using client::trace::TraceType;
  TraceRecord pub;
  pub.type = TraceType::Pub;
  pub.timeStamp = 1700000000000;
  pub.regionId = "DefaultRegion";
  pub.groupName = "PG_TRACED";
  pub.topic = topic;
  pub.msgId = msgId;
  pub.tags = "TagA";
  pub.keys = "k0";
  pub.storeHost = node.brokerAddr;
  pub.bodyLength = 8;
  pub.costTime = 5;
  pub.offsetMsgId = sent[0].offsetMsgId;
  TraceRecord before = pub;
  before.type = TraceType::SubBefore;
  before.groupName = "CG_TRACED";
  before.requestId = "req-1";
  TraceRecord after;
  after.type = TraceType::SubAfter;
  after.requestId = "req-1";
  after.msgId = msgId;
  after.costTime = 7;
  after.keys = "k0";
  after.timeStamp = 1700000001000;
  after.groupName = "CG_TRACED";
  TraceRecord failed = after;
  failed.groupName = "CG_FAILING";
  failed.success = false;
  TraceRecord other = pub;
  other.msgId = "AC11000100002A9F0000000000000000";
  std::string body;
  for (auto* r : {&pub, &before, &after, &failed, &other}) body += client::trace::encodeTraceRecord(*r);
  auto decoded = client::trace::decodeTraceData(body);
  REQUIRE(decoded.size() == 5);
  CHECK(decoded[2].groupName == "CG_TRACED");
  CHECK(decoded[3].success == false);

  for (const std::string& traceTopic : {std::string("RMQ_SYS_TRACE_TOPIC"), customTrace}) {
    Message m = client::makeMessage(traceTopic, "", "", body);
    client::setKeys(m, std::vector<std::string>{msgId, "k0", other.msgId});
    REQUIRE(producer->send(m));
  }
  producer->shutdown();

  RunResult text;
  REQUIRE(eventually([&] {
    text = admin(node, "queryMsgTraceById", {"-i", msgId});
    return text.exitCode == 0;
  }, std::chrono::seconds(20)));
  auto lines = linesOf(text.out);
  REQUIRE_MESSAGE(lines.size() == 9, (describe(text)));
  CHECK(lines[0] == "#Type      #ProducerGroup       #ClientHost          #SendTime            #CostTimes #Status   ");
  CHECK(lines[1].rfind("Pub        PG_TRACED            127.0.0.1            ", 0) == 0);
  CHECK(lines[1].substr(lines[1].size() - 21) == "5ms        success   ");
  CHECK(lines[2].empty());
  // Consumer groups in name order, each under its own header; SubBefore is not printed.
  CHECK(lines[3] == "#Type      #ConsumerGroup       #ClientHost          #ConsumerTime        #CostTimes #Status   ");
  CHECK(lines[4].rfind("Sub        CG_FAILING           127.0.0.1            ", 0) == 0);
  CHECK(lines[4].substr(lines[4].size() - 21) == "7ms        failed    ");
  CHECK(lines[5].empty());
  CHECK(lines[6] == lines[3]);
  CHECK(lines[7].rfind("Sub        CG_TRACED            127.0.0.1            ", 0) == 0);
  CHECK(lines[7].substr(lines[7].size() - 21) == "7ms        success   ");
  CHECK(!contains(text.out, other.msgId));

  auto doc = adminJson(node, "queryMsgTraceById", {"-i", msgId, "-t", customTrace});
  auto& traces = rows(doc, "traces");
  REQUIRE(traces.Size() == 3);
  CHECK(str(traces[0], "#Type") == "Pub");
  CHECK(str(traces[0], "#Group") == "PG_TRACED");
  CHECK(str(traces[0], "#CostTimes") == "5ms");
  CHECK(str(traces[1], "#Group") == "CG_FAILING");
  CHECK(str(traces[1], "#Status") == "failed");
  CHECK(str(traces[2], "#Type") == "Sub");
  CHECK(str(traces[2], "#Status") == "success");

  CHECK(admin(node, "queryMsgTraceById", {"-i", "0A0000000000000000000000000000FF"}).exitCode == 1);  // no trace
  CHECK(admin(node, "queryMsgTraceById").exitCode == 2);  // -i is required
}

TEST_CASE("rmqadmin exportMetrics: metrics.json with each master's runtime figures and the cluster's totals") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("MetricsTopic");
  std::string group = uniqueName("MetricsCG");
  REQUIRE(node.createTopic(topic, 2));
  REQUIRE(admin(node, "updateSubGroup", {"-b", node.brokerAddr, "-g", group}).exitCode == 0);
  auto producer = startProducer(producerOptions(node));
  sendBodies(*producer, topic, "m-", 5);
  producer->shutdown();
  client::PushConsumer consumer(fastPushOptions(node, group));
  REQUIRE(consumer.subscribe(topic, "*"));
  std::atomic<int> consumed{0};
  consumer.registerListener([&](const std::vector<MessageExt>& m, const client::MessageQueue&) {
    consumed += static_cast<int>(m.size());
    return client::ConsumeStatus::CONSUME_SUCCESS;
  });
  REQUIRE(consumer.start());
  REQUIRE(eventually([&] { return consumed.load() >= 5; }, std::chrono::seconds(20)));

  std::string dir = node.proc.path("export");
  auto parseFile = [&](const std::string& name) {
    rapidjson::Document doc;
    std::string text = node.proc.readFile("export/" + name);
    REQUIRE_MESSAGE(json::parse(text, doc).ok(), ("not JSON: " + text));
    REQUIRE(doc.IsObject());
    return doc;
  };
  auto r = admin(node, "exportMetrics", {"-c", "DefaultCluster", "-f", dir});
  REQUIRE_MESSAGE(r.exitCode == 0, (describe(r)));
  CHECK(r.out == "export " + dir + "/metrics.json success\n");
  auto metrics = parseFile("metrics.json");
  REQUIRE(metrics["evaluateReport"].HasMember("broker-a"));
  auto& broker = metrics["evaluateReport"]["broker-a"];
  auto& quota = broker["runtimeQuota"];
  // topicSize / groupSize are the user topics and groups exportMetadata lists for the broker.
  REQUIRE(admin(node, "exportMetadata", {"-b", node.brokerAddr, "-t", "-f", dir}).exitCode == 0);
  REQUIRE(admin(node, "exportMetadata", {"-b", node.brokerAddr, "-g", "-f", dir}).exitCode == 0);
  CHECK(quota["topicSize"].GetInt() == static_cast<int>(parseFile("topic.json")["topicConfigTable"].MemberCount()));
  CHECK(quota["groupSize"].GetInt() ==
        static_cast<int>(parseFile("subscriptionGroup.json")["subscriptionGroupTable"].MemberCount()));
  CHECK(quota["topicSize"].GetInt() >= 1);
  CHECK(quota["groupSize"].GetInt() >= 1);
  CHECK(quota["diskRatio"]["commitLogDiskRatio"].IsString());
  CHECK(quota["diskRatio"]["consumeQueueDiskRatio"].IsString());
  CHECK(quota["messageAverageSize"].IsString());
  for (const char* k : {"normalInTps", "normalOutTps", "scheduleInTps", "transInTps"}) CHECK(quota["tps"][k].IsNumber());
  for (const char* k : {"normalOneDayInNum", "normalOneDayOutNum", "scheduleOneDayInNum", "transOneDayInNum"})
    CHECK(quota["oneDayNum"][k].IsInt64());
  CHECK(std::string(broker["runtimeVersion"]["rocketmqVersion"].GetString()) == "V4_9_7");
  auto& clients = broker["runtimeVersion"]["clientInfo"];
  REQUIRE(clients.IsArray());
  REQUIRE(clients.Size() == 1);  // the push consumer of `group`
  CHECK(std::string(clients[0].GetString()) == "CPP%V4_9_7");
  // One master: the totals are its figures.
  auto& total = metrics["totalData"];
  CHECK(total["totalOneDayNum"]["normalOneDayInNum"].GetInt64() == quota["oneDayNum"]["normalOneDayInNum"].GetInt64());
  CHECK(total["totalTps"]["totalNormalInTps"].GetDouble() == quota["tps"]["normalInTps"].GetDouble());
  consumer.shutdown();

  CHECK(admin(node, "exportMetrics", {"-c", "NoSuchCluster", "-f", dir}).exitCode == 1);
  CHECK(admin(node, "exportMetrics", {"-f", dir}).exitCode == 2);  // -c is required
}

TEST_CASE("rmqadmin startMonitoring: undone messages of each online group, offset-moved events, -r rounds") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("MonitorTopic");
  std::string group = uniqueName("MonitorCG");
  REQUIRE(node.createTopic(topic, 1));
  auto producer = startProducer(producerOptions(node));
  sendBodies(*producer, topic, "mon-", 10);
  producer->shutdown();

  // The consumer holds message 5 until released: its committed offset stays at 5, 5 undone.
  client::PushConsumer consumer(fastPushOptions(node, group));
  REQUIRE(consumer.subscribe(topic, "*"));
  std::atomic<bool> release{false};
  std::atomic<int> consumed{0};
  consumer.registerListener([&](const std::vector<MessageExt>& msgs, const client::MessageQueue&) {
    for (auto& m : msgs)
      if (m.body == "mon-5")
        for (int i = 0; i < 600 && !release.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    consumed += static_cast<int>(msgs.size());
    return client::ConsumeStatus::CONSUME_SUCCESS;
  });
  REQUIRE(consumer.start());

  const std::string undonePrefix =
      "[MONITOR] reportUndoneMsgs: UndoneMsgs [consumerGroup=" + group + ", topic=" + topic + ", ";
  RunResult text;
  CHECK(eventually([&] {
    consumer.persistOffsetsNow();
    text = admin(node, "startMonitoring", {"-d", "0", "-r", "1"});
    return text.exitCode == 0 && contains(text.out, undonePrefix + "undoneMsgsTotal=5, undoneMsgsSingleMQ=5, ");
  }, std::chrono::seconds(30)));
  auto lines = linesOf(text.out);
  REQUIRE(lines.size() >= 3);
  CHECK(lines.front() == "[MONITOR] =========================================beginRound");
  CHECK(lines.back() == "[MONITOR] =========================================endRound");

  // --json: one object per event; two rounds 100 ms apart.
  auto r = admin(node, "startMonitoring", {"-d", "0", "-i", "100", "-r", "2", "--json"});
  REQUIRE_MESSAGE(r.exitCode == 0, (describe(r)));
  int begins = 0, ends = 0, undone = 0;
  for (auto& l : linesOf(r.out)) {
    rapidjson::Document d;
    if (!json::parse(l, d).ok() || !d.IsObject() || !d.HasMember("type")) continue;
    std::string type = d["type"].GetString();
    begins += type == "beginRound";
    ends += type == "endRound";
    if (type == "undoneMsgs" && str(d, "consumerGroup") == group && str(d, "topic") == topic) {
      ++undone;
      CHECK(num(d, "undoneMsgsTotal") == 5);
      CHECK(num(d, "undoneMsgsSingleMQ") == 5);
      CHECK(num(d, "undoneMsgsDelayTimeMills") >= 0);
    }
  }
  CHECK(begins == 2);
  CHECK(ends == 2);
  CHECK(undone == 2);
  release = true;
  consumer.shutdown();

  // A pull beyond the queue's end while the monitor runs: the broker's OffsetMovedEvent is reported.
  auto puller = startPullConsumer(pullOptions(node, group + "_far"));
  const std::string moved = "[MONITOR] reportDeleteMsgsEvent: DeleteMsgsEvent [offsetMovedEvent=OffsetMovedEvent "
                            "[consumerGroup=" + group + "_far, messageQueue=MessageQueue [topic=" + topic +
                            ", brokerName=broker-a, queueId=0], offsetRequest=1000000, offsetNew=";  // the store's nextBeginOffset
  CHECK(eventually([&] {
    std::atomic<bool> done{false};
    RunResult run;
    std::thread monitor([&] {
      run = admin(node, "startMonitoring", {"-d", "3000", "-r", "1"});
      done = true;
    });
    for (int i = 0; i < 100 && !done.load(); ++i) {
      (void)puller->pull(client::MessageQueue{topic, "broker-a", 0}, "*", 1000000, 1);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    monitor.join();
    return run.exitCode == 0 && contains(run.out, moved) && contains(run.out, "], eventTimestamp=");
  }, std::chrono::seconds(40)));
  puller->shutdown();

  CHECK(admin(node, "startMonitoring", {"-r", "-1"}).exitCode == 2);
  CHECK(admin(node, "startMonitoring", {"-r", "x"}).exitCode == 2);
}
