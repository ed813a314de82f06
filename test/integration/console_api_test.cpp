// The console's /api/ endpoints on a real dev node with its HTTP port on: the broker in the
// cluster view, topics created / listed / deleted, a sent message found by key, id and queue
// offset, a consumer group's members and lag, reset offset by time, a live producer's connection,
// brokers that never answer in the cluster view, pending timers and their lag, and read-only mode.
#include <doctest/doctest.h>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>

#include "broker_calls.h"
#include "client_fixture.h"
#include "common/json.h"
#include "common/timer_properties.h"
#include "common/wall_clock.h"
#include "dev_node.h"
#include "http_get.h"
#include "namesrv_client.h"
#include "test_client.h"

using namespace rmq;
using namespace rmq::test;

namespace {

// A DevNode whose HTTP endpoint (console) listens on a free port; read-only when asked.
struct ConsoleNode {
  explicit ConsoleNode(bool readOnly = false) : node(DevNodeSpec{.http = true}), httpPort(node.httpPort) {
    if (!readOnly) return;
    std::ifstream in(node.proc.path("node.toml"));
    std::stringstream toml;
    toml << in.rdbuf();
    node.proc.writeFile("node.toml", "consoleReadOnly = true\n" + toml.str());  // a top-level key: first
  }
  bool start() {
    if (!node.start()) return false;
    return eventually([&] { return httpGet(httpPort, "/api/console").status == 200; }, std::chrono::seconds(15));
  }
  DevNode node;
  uint16_t httpPort = 0;
};

rapidjson::Document parsed(const HttpReply& r) {
  rapidjson::Document doc;
  INFO(r.body);
  REQUIRE(json::parse(r.body, doc));
  return doc;
}

// A broker address that never answers: a listening socket nobody accepts from, so a connect
// succeeds (the kernel's backlog) and every request waits for its timeout.
struct SilentBroker {
  asio::io_context io;
  asio::ip::tcp::acceptor acceptor{io, asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), 0)};
  std::string addr = "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
};

bool topicListed(uint16_t port, const std::string& topic) {
  auto doc = parsed(httpGet(port, "/api/topics"));
  for (auto& t : doc["topics"].GetArray())
    if (topic == t["name"].GetString()) return true;
  return false;
}

}  // namespace

TEST_CASE("console api: cluster, topics, create / delete, send and find by key, id and offset") {
  ConsoleNode cn;
  REQUIRE(cn.start());
  uint16_t port = cn.httpPort;

  auto page = httpGet(port, "/");
  CHECK(page.status == 200);
  CHECK(page.headers.find("Content-Type: text/html") != std::string::npos);
  CHECK(page.body.find("rmqnode console") != std::string::npos);
  CHECK(httpGet(port, "/console.js").status == 200);
  CHECK(httpGet(port, "/no/such/page").status == 404);  // "/" serves the page only, not every path
  CHECK(httpRequest(port, "POST", "/").status == 405);

  auto info = parsed(httpGet(port, "/api/console"));
  CHECK_FALSE(info["readOnly"].GetBool());
  CHECK(std::string(info["namesrvAddr"].GetString()) == cn.node.namesrvAddr);

  auto cluster = parsed(httpGet(port, "/api/cluster"));
  REQUIRE(cluster["clusters"].Size() == 1);
  auto& broker = cluster["clusters"][0]["brokers"][0];
  CHECK(std::string(cluster["clusters"][0]["name"].GetString()) == "DefaultCluster");
  CHECK(std::string(broker["addr"].GetString()) == cn.node.brokerAddr);
  CHECK(std::string(broker["role"].GetString()) == "MASTER");
  CHECK(std::string(broker["version"].GetString()) == "V4_9_7");
  CHECK(broker.HasMember("putTps"));

  auto config = parsed(httpGet(port, "/api/broker/config?addr=" + cn.node.brokerAddr));
  CHECK(std::string(config["config"]["listenPort"].GetString()) == std::to_string(cn.node.brokerPort));
  auto runtime = parsed(httpGet(port, "/api/broker/runtime?addr=" + cn.node.brokerAddr));
  CHECK(runtime["runtime"].HasMember("commitLogMaxOffset"));

  auto topics = parsed(httpGet(port, "/api/topics"));
  bool tbw = false;
  for (auto& t : topics["topics"].GetArray())
    if (std::string(t["name"].GetString()) == "TBW102") tbw = std::string(t["kind"].GetString()) == "system";
  CHECK(tbw);

  std::string topic = uniqueName("ConsoleApi");
  auto created = httpPostForm(port, "/api/topic", "topic=" + topic + "&cluster=DefaultCluster&readQueueNums=4&writeQueueNums=4&perm=6");
  INFO(created.body);
  REQUIRE(created.status == 200);
  CHECK(topicListed(port, topic));
  auto detail = parsed(httpGet(port, "/api/topic?topic=" + topic));
  CHECK(detail["queues"].Size() == 4);
  CHECK(detail["route"]["queueDatas"][0]["writeQueueNums"].GetInt() == 4);
  CHECK(detail["tps"].IsNull());  // first sample

  // Bad input is a 400 with a message, never a crash.
  CHECK(httpPostForm(port, "/api/topic", "topic=" + topic + "&readQueueNums=x").status == 400);
  CHECK(httpGet(port, "/api/topic").status == 400);
  CHECK(httpGet(port, "/api/topic?topic=NoSuchTopicHere").status == 404);
  CHECK(httpGet(port, "/api/messages/by-offset?topic=" + topic).status == 400);

  std::string key = uniqueName("key");
  auto sent = httpPostForm(port, "/api/messages", "topic=" + topic + "&tags=TagA&keys=" + key + "&body=" + urlEncode("héllo console"));
  INFO(sent.body);
  REQUIRE(sent.status == 200);
  auto sendResult = parsed(sent);
  CHECK(std::string(sendResult["status"].GetString()) == "SEND_OK");
  std::string offsetMsgId = sendResult["offsetMsgId"].GetString();
  int queueId = sendResult["queueId"].GetInt();
  int64_t queueOffset = sendResult["queueOffset"].GetInt64();

  rapidjson::Document byKey;
  REQUIRE(eventually(
      [&] {
        auto r = httpGet(port, "/api/messages/by-key?topic=" + topic + "&key=" + key);
        if (r.status != 200) return false;
        byKey = parsed(r);
        return byKey["messages"].Size() == 1;
      },
      std::chrono::seconds(10)));
  auto& m = byKey["messages"][0];
  CHECK(std::string(m["bodyText"].GetString()) == "héllo console");
  CHECK(std::string(m["tags"].GetString()) == "TagA");
  CHECK(std::string(m["keys"].GetString()) == key);
  CHECK(std::string(m["offsetMsgId"].GetString()) == offsetMsgId);
  CHECK(std::string(m["msgId"].GetString()) == sendResult["msgId"].GetString());
  CHECK(std::string(m["properties"]["KEYS"].GetString()) == key);

  auto byId = parsed(httpGet(port, "/api/messages/by-id?msgId=" + offsetMsgId));
  REQUIRE(byId["messages"].Size() == 1);
  CHECK(std::string(byId["messages"][0]["keys"].GetString()) == key);
  auto byUniq = parsed(httpGet(port, "/api/messages/by-id?msgId=" + std::string(sendResult["msgId"].GetString()) + "&topic=" + topic));
  REQUIRE(byUniq["messages"].Size() == 1);
  CHECK(std::string(byUniq["messages"][0]["offsetMsgId"].GetString()) == offsetMsgId);
  auto byOffset = parsed(httpGet(port, "/api/messages/by-offset?topic=" + topic + "&brokerName=broker-a&queueId=" +
                                           std::to_string(queueId) + "&offset=" + std::to_string(queueOffset)));
  CHECK(std::string(byOffset["messages"][0]["bodyText"].GetString()) == "héllo console");
  CHECK(std::string(byOffset["messages"][0]["bodyHex"].GetString()).starts_with("68c3a96c6c6f"));

  auto deleted = httpRequest(port, "DELETE", "/api/topic?topic=" + topic);
  INFO(deleted.body);
  CHECK(deleted.status == 200);
  CHECK_FALSE(topicListed(port, topic));
}

TEST_CASE("console api: a consumer group's members and lag per queue; reset offset by time replays") {
  ConsoleNode cn;
  REQUIRE(cn.start());
  uint16_t port = cn.httpPort;
  std::string topic = uniqueName("ConsoleGroupT");
  REQUIRE(cn.node.createTopic(topic, 2));
  auto producer = startProducer(producerOptions(cn.node));
  sendBodies(*producer, topic, "m", 6);

  auto opts = pushOptions(cn.node);
  opts.consumeFromWhere = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  std::string group = opts.group;
  std::atomic<int> consumed{0};
  client::PushConsumer consumer(opts);
  REQUIRE(consumer.subscribe(topic, "*"));
  consumer.registerListener([&](const std::vector<MessageExt>& msgs, const client::MessageQueue&) {
    consumed += static_cast<int>(msgs.size());
    return client::ConsumeStatus::CONSUME_SUCCESS;
  });
  REQUIRE(consumer.start());
  REQUIRE(eventually([&] { return consumed.load() >= 6; }, std::chrono::seconds(20)));
  consumer.persistOffsetsNow();

  rapidjson::Document g;
  REQUIRE(eventually(
      [&] {
        g = parsed(httpGet(port, "/api/group?group=" + group));
        int64_t brokerSum = 0, lagSum = 0;
        for (auto& q : g["queues"].GetArray()) {
          if (std::string(q["topic"].GetString()) != topic) continue;
          brokerSum += q["brokerOffset"].GetInt64();
          lagSum += q["lag"].GetInt64();
        }
        return brokerSum == 6 && lagSum == 0;
      },
      std::chrono::seconds(15)));
  CHECK(g["online"].GetBool());
  REQUIRE(g["members"].Size() == 1);
  bool subscribed = false;  // the topic, and the group's %RETRY% topic
  for (auto& sub : g["subscriptions"].GetArray()) subscribed |= topic == sub["topic"].GetString();
  CHECK(subscribed);

  auto groups = parsed(httpGet(port, "/api/groups"));
  bool listed = false;
  for (auto& x : groups["groups"].GetArray())
    if (group == x["group"].GetString()) listed = x["members"].GetInt() == 1 && x["diff"].GetInt64() == 0;
  CHECK(listed);

  // Back to the start: the online consumer is told by the broker and gets all 6 again.
  auto reset = httpPostForm(port, "/api/group/reset-offset", "group=" + group + "&topic=" + topic + "&timestamp=0");
  INFO(reset.body);
  REQUIRE(reset.status == 200);
  auto r = parsed(reset);
  CHECK(r["queues"].Size() == 2);
  for (auto& q : r["queues"].GetArray()) CHECK(q["offset"].GetInt64() == 0);
  CHECK(eventually([&] { return consumed.load() >= 12; }, std::chrono::seconds(20)));
  consumer.shutdown();
  producer->shutdown();
}

TEST_CASE("console api: consoleReadOnly refuses every write with 403 and still serves reads") {
  ConsoleNode cn(true);
  REQUIRE(cn.start());
  uint16_t port = cn.httpPort;
  CHECK(parsed(httpGet(port, "/api/console"))["readOnly"].GetBool());
  std::string topic = uniqueName("ReadOnlyT");
  auto create = httpPostForm(port, "/api/topic", "topic=" + topic);
  CHECK(create.status == 403);
  CHECK(create.body.find("read-only") != std::string::npos);
  CHECK(httpPostForm(port, "/api/messages", "topic=TBW102&body=x").status == 403);
  CHECK(httpRequest(port, "DELETE", "/api/topic?topic=TBW102").status == 403);
  CHECK(httpPostForm(port, "/api/group/reset-offset", "group=g&topic=TBW102&timestamp=0").status == 403);
  CHECK(httpGet(port, "/api/cluster").status == 200);
  CHECK_FALSE(topicListed(port, topic));
  CHECK(topicListed(port, "TBW102"));
}

TEST_CASE("console api: a live producer's connections by topic and producer group") {
  ConsoleNode cn;
  REQUIRE(cn.start());
  uint16_t port = cn.httpPort;
  std::string topic = uniqueName("ConsoleProdT");
  REQUIRE(cn.node.createTopic(topic, 2));
  auto opts = producerOptions(cn.node);
  auto producer = startProducer(opts);
  sendBodies(*producer, topic, "p", 2);

  // The producer heartbeats the broker it first talks to at once; poll until the broker lists it.
  rapidjson::Document d;
  REQUIRE(eventually(
      [&] {
        auto r = httpGet(port, "/api/producers?topic=" + topic + "&group=" + opts.group);
        if (r.status != 200) return false;
        d = parsed(r);
        return d["connections"].Size() == 1;
      },
      std::chrono::seconds(15)));
  CHECK(d["online"].GetBool());
  CHECK(std::string(d["group"].GetString()) == opts.group);
  auto& c = d["connections"][0];
  CHECK(std::string(c["clientId"].GetString()) == producer->instance().clientId());
  CHECK(std::string(c["clientAddr"].GetString()).starts_with("127.0.0.1:"));
  CHECK_FALSE(std::string(c["language"].GetString()).empty());
  CHECK(c["version"].GetInt() > 0);

  // No producer of that group: 404 with the broker's words; missing parameters: 400.
  auto none = httpGet(port, "/api/producers?topic=" + topic + "&group=" + uniqueName("NoSuchProducerGroup"));
  CHECK(none.status == 404);
  CHECK(none.body.find("not exist") != std::string::npos);
  CHECK(httpGet(port, "/api/producers?topic=" + topic).status == 400);
  CHECK(httpGet(port, "/api/producers?topic=NoSuchTopicHere&group=" + opts.group).status == 404);

  producer->shutdown();
  CHECK(eventually([&] { return httpGet(port, "/api/producers?topic=" + topic + "&group=" + opts.group).status == 404; },
                   std::chrono::seconds(15)));
}

TEST_CASE("console api: brokers that never answer cost the cluster view one timeout; the live broker is still listed") {
  ConsoleNode cn;
  REQUIRE(cn.start());
  uint16_t port = cn.httpPort;
  // Four silent brokers registered in the node's cluster (the registering connection stays open, so
  // the name server keeps them). Asked one after another they would take 4 x rpcTimeout (3 s), past
  // httpGet's 10 s; asked at once, one timeout.
  std::vector<std::unique_ptr<SilentBroker>> silent;
  TestClient registrar;
  for (int i = 0; i < 4; ++i) {
    silent.push_back(std::make_unique<SilentBroker>());
    auto reg = registrar.call(cn.node.namesrvAddr, registerRequest("DefaultCluster", "silent-" + std::to_string(i), 0,
                                                                    silent.back()->addr, registerBody(1, {})));
    REQUIRE(codeOf(reg) == 0);
  }
  auto start = std::chrono::steady_clock::now();
  auto reply = httpGet(port, "/api/cluster");
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("/api/cluster with 4 silent brokers answered in " << ms << " ms");  // a figure, not an assertion
  REQUIRE(reply.status == 200);
  auto cluster = parsed(reply);
  REQUIRE(cluster["clusters"].Size() == 1);
  int live = 0, timedOut = 0;
  for (auto& b : cluster["clusters"][0]["brokers"].GetArray()) {
    std::string addr = b["addr"].GetString();
    if (addr == cn.node.brokerAddr) {
      live += std::string(b["version"].GetString()) == "V4_9_7" && !b.HasMember("error");
    } else {
      INFO(addr);
      REQUIRE(b.HasMember("error"));
      timedOut += !b.HasMember("version");
    }
  }
  CHECK(live == 1);
  CHECK(timedOut == 4);
}

TEST_CASE("console api: the cluster view shows a broker's pending and delivered timers and their lag") {
  ConsoleNode cn;
  REQUIRE(cn.start());
  std::string topic = uniqueName("ConsoleTimer");
  REQUIRE(cn.node.createTopic(topic, 1));
  TestClient c;
  auto timer = [&](int64_t at, const char* body) {
    sendOk(c, cn.node.brokerAddr, {.topic = topic, .body = body, .extraProps = {
        {std::string(prop::TIMER_DELIVER_MS), std::to_string(at)}}});
  };
  timer(nowMillis() + 600'000, "later");
  timer(nowMillis() + 500, "soon");
  auto broker = [&] {
    auto doc = parsed(httpGet(cn.httpPort, "/api/cluster"));
    REQUIRE(doc["clusters"].Size() == 1);
    rapidjson::Document b;
    b.CopyFrom(doc["clusters"][0]["brokers"][0], b.GetAllocator());
    return b;
  };
  REQUIRE(eventually([&] { return broker()["timerDelivered"].GetInt64() == 1; }, std::chrono::seconds(10)));
  auto b = broker();
  CHECK(b["timerPending"].GetInt64() == 1);  // "later"
  CHECK(b["timerLagP99Ms"].GetInt64() >= 0);
  auto runtime = parsed(httpGet(cn.httpPort, "/api/broker/runtime?addr=" + cn.node.brokerAddr));
  CHECK(std::string(runtime["runtime"]["timerPendingCount"].GetString()) == "1");
  CHECK(runtime["runtime"].HasMember("timerLagP99Ms"));
}
