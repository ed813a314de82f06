// The RocketMQ 5.x MessagingService of a real rmqnode (grpcServerPort on a free port) through the
// transport's C++ gRPC client: routes, Telemetry settings, NORMAL / FIFO / DELAY / TRANSACTION
// sends that a 4.x pull then reads with keys, tag and properties, refusals.
#include <doctest/doctest.h>

#include <future>
#include <map>
#include <set>
#include <thread>

#include "broker_requests.h"
#include "client/consumer/consume_directly.h"
#include "client/request_headers.h"
#include "common/json.h"
#include "common/request_code.h"
#include "common/wall_clock.h"
#include "dev_node.h"
#include "grpc_client.h"
#include "grpc/grpc_wire.h"
#include "http_get.h"
#include "node_config.h"
#include "test_client.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;

namespace {

// UPDATE_AND_CREATE_TOPIC with 5.x attributes ("+message.type=FIFO"), then routable.
bool createTopic(DevNode& node, const std::string& topic, int queues, const std::string& attributes) {
  TestClient c;
  auto req = createTopicRequest(topic, queues);
  if (!attributes.empty()) req.extFields.set("attributes", attributes);
  if (codeOf(c.call(node.brokerAddr, std::move(req))) != 0) return false;
  return eventually([&] { return codeOf(c.call(node.namesrvAddr, client::makeRouteRequest(topic))) == 0; },
                    std::chrono::seconds(10));
}

// Every message of the topic's queues 0..queues-1, pulled with a 4.x PULL_MESSAGE.
std::vector<MessageExt> pullAll(DevNode& node, const std::string& topic, int queues) {
  TestClient c;
  std::vector<MessageExt> out;
  for (int q = 0; q < queues; ++q) {
    auto r = c.call(node.brokerAddr, pullRequest({.topic = topic, .queueId = q}));
    if (r && r->code == 0)
      for (auto& m : pulledMessages(*r)) out.push_back(std::move(m));
  }
  return out;
}

const MessageExt* byUniqKey(const std::vector<MessageExt>& ms, const std::string& id) {
  for (auto& m : ms)
    if (auto* k = m.property("UNIQ_KEY"); k && *k == id) return &m;
  return nullptr;
}

// QueryRoute until it lists `queues` queues (a new topic reaches the name server soon after its creation).
v2::QueryRouteResponse routeOnceListed(GrpcTestClient& g, const std::string& topic, int queues) {
  v2::QueryRouteRequest req;
  req.mutable_topic()->set_name(topic);
  v2::QueryRouteResponse resp;
  bool listed = eventually([&] {
    resp = g.unary<v2::QueryRouteResponse>("QueryRoute", req);
    return resp.message_queues_size() == queues;
  }, std::chrono::seconds(15));
  CHECK_MESSAGE(listed, "route of " << topic << " has " << resp.message_queues_size() << " queues");
  return resp;
}

v2::SendMessageResponse sendOne(GrpcTestClient& g, const v2::Message& m) {
  v2::SendMessageRequest req;
  *req.add_messages() = m;
  return g.unary<v2::SendMessageResponse>("SendMessage", req);
}

}  // namespace

TEST_CASE("grpc QueryRoute: a known topic lists the broker's gRPC endpoint and queues; unknown is 40402") {
  DevNode node({.grpc = true});
  REQUIRE(node.start());
  std::string topic = uniqueName("GrpcRoute");
  REQUIRE(createTopic(node, topic, 4, ""));
  GrpcTestClient g(node.grpcPort);
  v2::QueryRouteRequest req;
  req.mutable_topic()->set_name(topic);
  auto resp = g.unary<v2::QueryRouteResponse>("QueryRoute", req);
  CHECK(resp.status().code() == v2::Code::OK);
  REQUIRE(resp.message_queues_size() == 4);
  for (int i = 0; i < 4; ++i) {
    const auto& q = resp.message_queues(i);
    CHECK(q.id() == i);
    CHECK(q.permission() == v2::Permission::READ_WRITE);
    CHECK(q.broker().name() == "broker-a");
    CHECK(q.broker().endpoints().addresses(0).host() == "127.0.0.1");
    CHECK(q.broker().endpoints().addresses(0).port() == node.grpcPort);
    REQUIRE(q.accept_message_types_size() == 1);
    CHECK(q.accept_message_types(0) == v2::MessageType::NORMAL);
  }
  req.mutable_topic()->set_name("NoSuchTopic_" + topic);
  resp = g.unary<v2::QueryRouteResponse>("QueryRoute", req);
  CHECK(static_cast<int>(resp.status().code()) == 40402);
  CHECK(resp.status().message() == "CODE: 17  DESC: No topic route info in name server for the topic: NoSuchTopic_" + topic);
}

TEST_CASE("grpc Telemetry answers a producer's settings; a request without client id is refused") {
  DevNode node({.grpc = true});
  REQUIRE(node.start());
  GrpcTestClient g(node.grpcPort);
  v2::Settings s;
  s.set_client_type(v2::ClientType::PRODUCER);
  s.mutable_publishing()->add_topics()->set_name("TopicX");
  auto reply = g.telemetry(s);
  CHECK(reply.status().code() == v2::Code::OK);
  REQUIRE(reply.has_settings());
  CHECK(reply.settings().publishing().max_body_size() == 4 * 1024 * 1024);
  CHECK(reply.settings().publishing().validate_message_type());
  CHECK(reply.settings().backoff_policy().max_attempts() == 3);
  CHECK(reply.settings().backoff_policy().has_exponential_backoff());

  v2::QueryRouteRequest req;
  req.mutable_topic()->set_name("TopicX");
  auto resp = g.unary<v2::QueryRouteResponse>("QueryRoute", req, grpc::Metadata{{"x-mq-language", "CPP"}});
  CHECK(resp.status().code() == v2::Code::CLIENT_ID_REQUIRED);
  auto unimpl = g.unaryRaw("PullMessage", "", g.metadata());
  CHECK(unimpl.status.code == grpc::StatusCode::UNIMPLEMENTED);
}

TEST_CASE("grpc SendMessage NORMAL: a 4.x pull reads it with UNIQ_KEY, keys, tag and user properties; GZIP too") {
  DevNode node({.grpc = true});
  REQUIRE(node.start());
  std::string topic = uniqueName("GrpcNormal");
  REQUIRE(createTopic(node, topic, 4, ""));
  GrpcTestClient g(node.grpcPort);
  std::string id = newMessageId();
  auto resp = sendOne(g, grpcMessage(topic, v2::MessageType::NORMAL, id));
  REQUIRE(resp.status().code() == v2::Code::OK);
  CHECK(resp.entries(0).message_id() == id);
  std::vector<MessageExt> ms;  // consume queues are filled by the store's dispatch, just after the append
  REQUIRE(eventually([&] {
    ms = pullAll(node, topic, 4);
    return byUniqKey(ms, id) != nullptr;
  }, std::chrono::seconds(5)));
  const MessageExt* m = byUniqKey(ms, id);
  CHECK(m->body == "body of " + id);
  CHECK(m->tags() == "TagA");
  CHECK(m->keys() == "key-" + id + " second");
  REQUIRE(m->property("color"));
  CHECK(*m->property("color") == "red");
  CHECK(m->queueOffset == resp.entries(0).offset());

  // A GZIP body is stored as a 4.x producer stores a big one (zlib, COMPRESSED): the pull inflates it.
  std::string gzId = newMessageId();
  auto gz = grpcMessage(topic, v2::MessageType::NORMAL, gzId);
  const std::string text = "gzip " + std::string(8000, 'z');
  gz.set_body(grpc::gzipMessage(text));
  gz.mutable_system_properties()->set_body_encoding(v2::Encoding::GZIP);
  REQUIRE(sendOne(g, gz).status().code() == v2::Code::OK);
  REQUIRE(eventually([&] {
    ms = pullAll(node, topic, 4);
    return byUniqKey(ms, gzId) != nullptr;
  }, std::chrono::seconds(5)));
  m = byUniqKey(ms, gzId);
  CHECK((m->sysFlag & sysflag::COMPRESSED) != 0);
  CHECK(m->body == text);
}

TEST_CASE("grpc SendMessage: type refused (a new topic as NORMAL), body over the limit, FIFO to one queue per group") {
  DevNode node({.extraStore = "maxMessageSize = 2048\n", .grpc = true});
  REQUIRE(node.start());
  std::string normal = uniqueName("GrpcN");
  std::string fifo = uniqueName("GrpcFifo");
  REQUIRE(createTopic(node, normal, 4, ""));
  REQUIRE(createTopic(node, fifo, 8, "+message.type=FIFO"));
  GrpcTestClient g(node.grpcPort);

  auto f = grpcMessage(normal, v2::MessageType::FIFO, newMessageId());
  f.mutable_system_properties()->set_message_group("g1");
  auto resp = sendOne(g, f);
  CHECK(resp.status().code() == v2::Code::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE);

  // A topic the broker does not have yet is typed as auto-creation makes it: NORMAL.
  std::string fresh = uniqueName("GrpcFresh");
  auto freshFifo = grpcMessage(fresh, v2::MessageType::FIFO, newMessageId());
  freshFifo.mutable_system_properties()->set_message_group("g1");
  resp = sendOne(g, freshFifo);
  CHECK(resp.status().code() == v2::Code::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE);
  CHECK(resp.status().message() == "TopicMessageType validate failed, the expected type is NORMAL, but actual type is FIFO");
  std::string freshId = newMessageId();
  REQUIRE(sendOne(g, grpcMessage(fresh, v2::MessageType::NORMAL, freshId)).status().code() == v2::Code::OK);
  CHECK(eventually([&] { return byUniqKey(pullAll(node, fresh, 4), freshId) != nullptr; }, std::chrono::seconds(5)));

  auto big = grpcMessage(normal, v2::MessageType::NORMAL, newMessageId());
  big.set_body(std::string(2049, 'x'));
  resp = sendOne(g, big);
  CHECK(resp.status().code() == v2::Code::MESSAGE_BODY_TOO_LARGE);
  CHECK(pullAll(node, normal, 4).empty());

  v2::QueryRouteRequest route;
  route.mutable_topic()->set_name(fifo);
  auto rr = g.unary<v2::QueryRouteResponse>("QueryRoute", route);
  REQUIRE(rr.message_queues_size() == 8);
  CHECK(rr.message_queues(0).accept_message_types(0) == v2::MessageType::FIFO);

  std::vector<std::string> ids;
  for (int i = 0; i < 6; ++i) {
    auto m = grpcMessage(fifo, v2::MessageType::FIFO, newMessageId());
    m.mutable_system_properties()->set_message_group(i % 2 ? "order-1" : "order-2");
    ids.push_back(m.system_properties().message_id());
    REQUIRE(sendOne(g, m).status().code() == v2::Code::OK);
  }
  std::vector<MessageExt> ms;
  REQUIRE(eventually([&] {
    ms = pullAll(node, fifo, 8);
    return ms.size() >= 6;
  }, std::chrono::seconds(5)));
  REQUIRE(ms.size() == 6);
  std::map<std::string, std::set<int>> queuesOf;
  for (auto& m : ms) queuesOf[*m.property("__SHARDINGKEY")].insert(m.queueId);
  CHECK(queuesOf["order-1"].size() == 1);  // one group, one queue, in send order
  CHECK(queuesOf["order-2"].size() == 1);
  std::vector<std::string> order1;
  for (auto& m : ms)
    if (*m.property("__SHARDINGKEY") == "order-1") order1.push_back(*m.property("UNIQ_KEY"));
  CHECK(order1 == std::vector<std::string>{ids[1], ids[3], ids[5]});
}

TEST_CASE("grpc TRANSACTION: half message invisible until EndTransaction COMMIT; ROLLBACK drops it") {
  DevNode node({.grpc = true});
  REQUIRE(node.start());
  std::string topic = uniqueName("GrpcTx");
  REQUIRE(createTopic(node, topic, 2, "+message.type=TRANSACTION"));
  GrpcTestClient g(node.grpcPort);
  std::string commitId = newMessageId(), rollbackId = newMessageId();
  auto a = sendOne(g, grpcMessage(topic, v2::MessageType::TRANSACTION, commitId));
  auto b = sendOne(g, grpcMessage(topic, v2::MessageType::TRANSACTION, rollbackId));
  REQUIRE(a.status().code() == v2::Code::OK);
  REQUIRE(b.status().code() == v2::Code::OK);
  CHECK(a.entries(0).transaction_id() == commitId);
  CHECK(pullAll(node, topic, 2).empty());

  v2::EndTransactionRequest end;
  end.mutable_topic()->set_name(topic);
  end.set_message_id(commitId);
  end.set_transaction_id(a.entries(0).transaction_id());
  end.set_resolution(v2::TransactionResolution::COMMIT);
  end.set_source(v2::TransactionSource::SOURCE_CLIENT);
  CHECK(g.unary<v2::EndTransactionResponse>("EndTransaction", end).status().code() == v2::Code::OK);
  end.set_message_id(rollbackId);
  end.set_transaction_id(b.entries(0).transaction_id());
  end.set_resolution(v2::TransactionResolution::ROLLBACK);
  CHECK(g.unary<v2::EndTransactionResponse>("EndTransaction", end).status().code() == v2::Code::OK);

  std::vector<MessageExt> ms;  // the commit record reaches the consume queue by the store's dispatch
  REQUIRE(eventually([&] {
    ms = pullAll(node, topic, 2);
    return !ms.empty();
  }, std::chrono::seconds(5)));
  REQUIRE(ms.size() == 1);
  CHECK(*ms[0].property("UNIQ_KEY") == commitId);
  CHECK(ms[0].tags() == "TagA");
  CHECK(ms[0].property("TRAN_MSG"));
}

TEST_CASE("grpc DELAY: delivered at its delivery timestamp through the timer, not before") {
  DevNode node({.grpc = true});
  REQUIRE(node.start());
  std::string topic = uniqueName("GrpcDelay");
  REQUIRE(createTopic(node, topic, 2, "+message.type=DELAY"));
  GrpcTestClient g(node.grpcPort);
  std::string id = newMessageId();
  auto m = grpcMessage(topic, v2::MessageType::DELAY, id);
  const int64_t at = nowMillis() + 2000;
  m.mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(at / 1000);
  m.mutable_system_properties()->mutable_delivery_timestamp()->set_nanos(static_cast<int32_t>(at % 1000) * 1000000);
  auto resp = sendOne(g, m);
  REQUIRE(resp.status().code() == v2::Code::OK);
  CHECK_FALSE(resp.entries(0).recall_handle().empty());
  CHECK(pullAll(node, topic, 2).empty());
  const MessageExt* got = nullptr;
  std::vector<MessageExt> ms;
  REQUIRE(eventually([&] {
    ms = pullAll(node, topic, 2);
    got = byUniqKey(ms, id);
    return got != nullptr;
  }, std::chrono::seconds(15)));
  CHECK(nowMillis() >= at);
  CHECK(got->keys() == "key-" + id + " second");
}

TEST_CASE("grpc QueryRoute from one broker lists every master of the cluster with its own gRPC port") {
  DevNode node({.grpc = true});
  REQUIRE(node.start());
  NodeProcess b;
  const uint16_t bPort = freeBrokerPort(), bGrpc = freePort();
  BrokerToml t;
  t.port = bPort;
  t.namesrvAddr = node.namesrvAddr;
  t.name = "broker-b";
  t.extraBroker = "grpcServerPort = " + std::to_string(bGrpc) + "\n";
  b.writeFile("b.toml", logDirToml(b) + brokerToml(b, t));
  b.setArgs({"--role=master", "-c", b.path("b.toml")});
  b.waitForPorts({bPort, bGrpc});
  REQUIRE(b.start(std::chrono::seconds(30)));
  std::string topic = uniqueName("GrpcTwo");
  TestClient c;
  REQUIRE(codeOf(c.call(node.brokerAddr, createTopicRequest(topic, 2))) == 0);
  REQUIRE(codeOf(c.call("127.0.0.1:" + std::to_string(bPort), createTopicRequest(topic, 3))) == 0);

  GrpcTestClient g(node.grpcPort);
  auto resp = routeOnceListed(g, topic, 5);
  REQUIRE(resp.message_queues_size() == 5);
  std::map<std::string, std::pair<int, int>> seen;  // broker -> (queues, gRPC port)
  for (const auto& q : resp.message_queues()) {
    auto& s = seen[q.broker().name()];
    ++s.first;
    s.second = q.broker().endpoints().addresses(0).port();
  }
  CHECK(seen["broker-a"] == std::make_pair(2, static_cast<int>(node.grpcPort)));
  CHECK(seen["broker-b"] == std::make_pair(3, static_cast<int>(bGrpc)));
}

TEST_CASE("grpc topic types: rmqadmin updateTopic -a +message.type=DELAY, then -a -message.type back to NORMAL") {
  DevNode node({.grpc = true});
  REQUIRE(node.start());
  std::string topic = uniqueName("GrpcAttr");
  auto r = tools::admin(node, "updateTopic", {"-b", node.brokerAddr, "-t", topic, "-r", "2", "-w", "2", "-a",
                                              "+message.type=DELAY"});
  REQUIRE_MESSAGE(r.exitCode == 0, tools::describe(r));
  GrpcTestClient g(node.grpcPort);
  v2::QueryRouteRequest req;
  req.mutable_topic()->set_name(topic);
  auto resp = routeOnceListed(g, topic, 2);
  REQUIRE(resp.message_queues_size() == 2);
  CHECK(resp.message_queues(0).accept_message_types(0) == v2::MessageType::DELAY);
  // A 4.x client sees the topic as ever (no attributes in its route); perm updates keep the type.
  r = tools::admin(node, "updateTopic", {"-b", node.brokerAddr, "-t", topic, "-r", "2", "-w", "2", "-p", "6"});
  REQUIRE(r.exitCode == 0);
  resp = g.unary<v2::QueryRouteResponse>("QueryRoute", req);
  CHECK(resp.message_queues(0).accept_message_types(0) == v2::MessageType::DELAY);
  r = tools::admin(node, "updateTopic", {"-b", node.brokerAddr, "-t", topic, "-a", "-message.type"});
  REQUIRE(r.exitCode == 0);
  resp = g.unary<v2::QueryRouteResponse>("QueryRoute", req);
  CHECK(resp.message_queues(0).accept_message_types(0) == v2::MessageType::NORMAL);
  r = tools::admin(node, "updateTopic", {"-b", node.brokerAddr, "-t", topic, "-a", "+message.type=BOGUS"});
  CHECK(r.exitCode != 0);
}

TEST_CASE("grpc TRANSACTION check-back: an orphan half message comes back on the producer's Telemetry stream") {
  DevNode node({.extraBroker = "transactionTimeOut = 500\ntransactionCheckInterval = 500\n", .grpc = true});
  REQUIRE(node.start());
  std::string topic = uniqueName("GrpcOrphan");
  REQUIRE(createTopic(node, topic, 2, "+message.type=TRANSACTION"));
  GrpcTestClient g(node.grpcPort, false, "127.0.0.1@777@0@orphan");
  v2::Settings s;
  s.set_client_type(v2::ClientType::PRODUCER);
  s.mutable_publishing()->add_topics()->set_name(topic);
  s.mutable_user_agent()->set_language(v2::Language::NODE_JS);
  s.mutable_user_agent()->set_version("5.0.8");
  v2::TelemetryCommand answer;
  auto stream = g.openTelemetry(s, answer);
  REQUIRE(answer.has_settings());

  // The console / mqadmin see the 5.x producer under group = topic, with its language and version.
  auto conns = tools::admin(node, "producerConnection", {"-g", topic, "-t", topic});
  CHECK_MESSAGE(conns.out.find("127.0.0.1@777@0@orphan") != std::string::npos, tools::describe(conns));
  CHECK(conns.out.find("NODE_JS") != std::string::npos);
  CHECK_MESSAGE(conns.out.find(" 429") != std::string::npos, conns.out);  // MQVersion V5_0_8

  std::string id = newMessageId();
  REQUIRE(sendOne(g, grpcMessage(topic, v2::MessageType::TRANSACTION, id)).status().code() == v2::Code::OK);
  std::optional<v2::TelemetryCommand> cmd;
  for (int i = 0; i < 20 && !(cmd && cmd->has_recover_orphaned_transaction_command()); ++i)
    cmd = stream->next(std::chrono::seconds(1));
  REQUIRE(cmd);
  REQUIRE(cmd->has_recover_orphaned_transaction_command());
  const auto& rec = cmd->recover_orphaned_transaction_command();
  CHECK(rec.transaction_id() == id);
  CHECK(rec.message().system_properties().message_id() == id);
  CHECK(rec.message().topic().name() == topic);
  CHECK(rec.message().body() == "body of " + id);

  v2::EndTransactionRequest end;
  end.mutable_topic()->set_name(topic);
  end.set_message_id(id);
  end.set_transaction_id(rec.transaction_id());
  end.set_resolution(v2::TransactionResolution::COMMIT);
  end.set_source(v2::TransactionSource::SOURCE_SERVER_CHECK);
  CHECK(g.unary<v2::EndTransactionResponse>("EndTransaction", end).status().code() == v2::Code::OK);
  std::vector<MessageExt> ms;
  REQUIRE(eventually([&] {
    ms = pullAll(node, topic, 2);
    return byUniqKey(ms, id) != nullptr;
  }, std::chrono::seconds(5)));
  stream->close();
}

TEST_CASE("grpc metrics: /metrics counts calls per RPC and calls that ended with a non-OK gRPC status") {
  DevNode node({.http = true, .grpc = true});
  REQUIRE(node.start());
  GrpcTestClient g(node.grpcPort);
  v2::QueryRouteRequest req;
  req.mutable_topic()->set_name("NoSuchTopic");
  for (int i = 0; i < 3; ++i) g.unary<v2::QueryRouteResponse>("QueryRoute", req);
  CHECK(g.unaryRaw("PullMessage", "", g.metadata()).status.code == grpc::StatusCode::UNIMPLEMENTED);
  const std::string labels = "{" + devBrokerLabels() + ",rpc=";
  std::string scrape;
  // The observer counts a call once it finished: poll until the last call is in.
  CHECK(eventually([&] {
    scrape = httpGet(node.httpPort, "/metrics").body;
    return metricValueOr0(scrape, "rmqnode_grpc_requests_total" + labels + "\"PullMessage\"}") == 1;
  }, std::chrono::seconds(5)));
  CHECK(metricValueOr0(scrape, "rmqnode_grpc_requests_total" + labels + "\"QueryRoute\"}") == 3);
  CHECK(metricValueOr0(scrape, "rmqnode_grpc_errors_total" + labels + "\"QueryRoute\"}") == 0);  // business status only
  CHECK(metricValueOr0(scrape, "rmqnode_grpc_errors_total" + labels + "\"PullMessage\"}") == 1);
  CHECK(metricValueOr0(scrape, "rmqnode_grpc_connections{" + devBrokerLabels() + "}") == 1);
}

TEST_CASE("grpc consumer commands: a 5.x consumer in consumerConnection; running info -s and consumeMessage over its Telemetry") {
  DevNode node({.grpc = true});
  REQUIRE(node.start());
  std::string topic = uniqueName("GrpcCmd");
  REQUIRE(createTopic(node, topic, 4, ""));
  const std::string group = uniqueName("CG5Cmd");
  const std::string clientId = "127.0.0.1@777@0@cmd";
  GrpcTestClient g(node.grpcPort, false, clientId);
  v2::Settings s;
  s.set_client_type(v2::ClientType::PUSH_CONSUMER);
  s.mutable_user_agent()->set_language(v2::Language::NODE_JS);
  s.mutable_user_agent()->set_version("5.0.8");
  s.mutable_subscription()->mutable_group()->set_name(group);
  auto* entry = s.mutable_subscription()->add_subscriptions();
  entry->mutable_topic()->set_name(topic);
  entry->mutable_expression()->set_type(v2::FilterType::TAG);
  entry->mutable_expression()->set_expression("TagA");
  v2::TelemetryCommand settingsAnswer;
  auto stream = g.openTelemetry(s, settingsAnswer);
  REQUIRE(settingsAnswer.status().code() == v2::Code::OK);

  TestClient c;  // consumerConnection: the client with its language and version, push, its subscription
  auto list = c.call(node.brokerAddr, RequestCode::GET_CONSUMER_CONNECTION_LIST, {{"consumerGroup", group}});
  REQUIRE(codeOf(list) == 0);
  CHECK(list->body.find("\"clientId\":\"" + clientId + "\"") != std::string::npos);
  CHECK(list->body.find("\"language\":\"NODE_JS\"") != std::string::npos);
  CHECK(list->body.find("CONSUME_PASSIVELY") != std::string::npos);
  CHECK(list->body.find("\"subString\":\"TagA\"") != std::string::npos);

  // consumerStatus -s: a PrintThreadStackTraceCommand out; the client's ThreadStackTrace is the jstack.
  auto info = std::async(std::launch::async, [&] {
    TestClient admin;
    return admin.call(node.brokerAddr, RequestCode::GET_CONSUMER_RUNNING_INFO,
                      {{"consumerGroup", group}, {"clientId", clientId}, {"jstackEnable", "true"}});
  });
  auto print = stream->next(std::chrono::seconds(5));
  REQUIRE(print);
  REQUIRE(print->has_print_thread_stack_trace_command());
  v2::TelemetryCommand trace;
  trace.mutable_status()->set_code(v2::Code::OK);
  trace.mutable_thread_stack_trace()->set_nonce(print->print_thread_stack_trace_command().nonce());
  trace.mutable_thread_stack_trace()->set_thread_stack_trace("\"main\" at consume (app.js:12)");
  stream->send(trace);
  auto infoAnswer = info.get();
  REQUIRE(codeOf(infoAnswer) == 0);
  rapidjson::Document doc;
  REQUIRE(json::parse(infoAnswer->body, doc).ok());
  CHECK(json::getString(doc, "jstack").value_or("") == "\"main\" at consume (app.js:12)");
  REQUIRE(doc.HasMember("properties"));
  CHECK(json::getString(doc["properties"], "PROP_CONSUME_TYPE").value_or("") == "CONSUME_PASSIVELY");
  CHECK(json::getString(doc["properties"], "PROP_CLIENT_VERSION").value_or("") == "V5_0_8");

  // consumeMessage (CONSUME_MESSAGE_DIRECTLY): a VerifyMessageCommand with the message; its result comes back.
  std::string id = newMessageId();
  REQUIRE(sendOne(g, grpcMessage(topic, v2::MessageType::NORMAL, id)).status().code() == v2::Code::OK);
  std::vector<MessageExt> ms;
  REQUIRE(eventually([&] {
    ms = pullAll(node, topic, 4);
    return byUniqKey(ms, id) != nullptr;
  }, std::chrono::seconds(5)));
  const std::string offsetMsgId = byUniqKey(ms, id)->offsetMsgId();
  auto direct = std::async(std::launch::async, [&] {
    TestClient admin;
    return admin.call(node.brokerAddr, RequestCode::CONSUME_MESSAGE_DIRECTLY,
                      {{"consumerGroup", group}, {"clientId", clientId}, {"msgId", offsetMsgId}});
  });
  auto verify = stream->next(std::chrono::seconds(5));
  REQUIRE(verify);
  REQUIRE(verify->has_verify_message_command());
  CHECK(verify->verify_message_command().message().system_properties().message_id() == id);
  CHECK(verify->verify_message_command().message().body() == "body of " + id);
  v2::TelemetryCommand result;
  result.mutable_status()->set_code(v2::Code::FAILED_TO_CONSUME_MESSAGE);
  result.mutable_verify_message_result()->set_nonce(verify->verify_message_command().nonce());
  stream->send(result);
  auto directAnswer = direct.get();
  REQUIRE(codeOf(directAnswer) == 0);
  auto consumed = client::decodeConsumeDirectlyResult(directAnswer->body);
  REQUIRE(consumed);
  CHECK(consumed->consumeResult == client::DirectConsumeResult::CR_LATER);
  CHECK(consumed->remark == "from gRPC client");

  stream->close();  // the client leaves: no longer a consumer of the group
  CHECK(eventually([&] {
    auto after = c.call(node.brokerAddr, RequestCode::GET_CONSUMER_CONNECTION_LIST, {{"consumerGroup", group}});
    return after && after->body.find(clientId) == std::string::npos;
  }, std::chrono::seconds(5)));
}
