// The 5.x MessagingService's RPC mappings through in-memory calls (messaging_fake_call.h): what
// each RPC asks of the broker (MessagingDeps fakes record it) and what it answers.
#include <doctest/doctest.h>

#include "common/message_codec.h"
#include "grpc/grpc_wire.h"
#include "common/response_code.h"
#include "common/request_code.h"
#include "common/timer_properties.h"
#include "common/wall_clock.h"
#include "roles/broker/clients/client_manager.h"
#include "messaging_fake_call.h"
#include "roles/broker/messaging/message_mapping.h"
#include "roles/broker/messaging/resource_namespace.h"

using namespace rmq;
using namespace rmq::broker;
using namespace rmq::broker::messaging;
using namespace rmq::broker::messaging::test;

namespace {

struct Broker {
  std::map<std::string, LocalTopic> topics{{"Orders", {"", 4}}, {"Fifo", {"FIFO", 8}}, {"Tx", {"TRANSACTION", 4}},
                                           {"Later", {"DELAY", 4}}};
  std::vector<SendHeader> puts;
  std::vector<std::string> bodies;
  std::vector<EndTransactionHeader> ends;
  int putCode = ResponseCode::SUCCESS;
  ClientManager clients{false};

  MessagingDeps deps() {
    MessagingDeps d;
    d.clusterName = "C";
    d.brokerName = "broker-a";
    d.maxMessageSize = [] { return 1024; };
    d.queryRoute = [](std::string topic) { return route(std::move(topic)); };
    d.grpcPortOf = [](std::string addr) { return port(std::move(addr)); };
    d.localTopic = [this](std::string_view t) -> std::optional<LocalTopic> {
      auto it = topics.find(std::string(t));
      if (it == topics.end()) return std::nullopt;
      return it->second;
    };
    d.group = [](std::string_view) { return std::optional<GroupSettings>(GroupSettings{false, 5}); };
    d.put = [this](SendHeader h, std::string_view body, HostAddress) { return put(this, std::move(h), std::string(body)); };
    d.endTransaction = [this](const EndTransactionHeader& h) {
      ends.push_back(h);
      return TransactionalMessageService::EndResult{ResponseCode::SUCCESS, ""};
    };
    d.clients = &clients;
    return d;
  }

  static asio::awaitable<Result<client::TopicRouteData>> route(std::string topic) {
    if (topic != "Orders" && topic != "Fifo") co_return Error{ResponseCode::TOPIC_NOT_EXIST, "No topic route info"};
    client::TopicRouteData r;
    r.queueDatas.push_back(QueueData{"broker-a", 4, 4, 6, 0});
    r.queueDatas.push_back(QueueData{"broker-b", 2, 3, 6, 0});
    r.queueDatas.push_back(QueueData{"broker-c", 2, 2, 6, 0});  // no master now
    r.brokerDatas.push_back(BrokerData{"C", "broker-a", {{0, "10.0.0.1:10911"}, {1, "10.0.0.11:10911"}}});
    r.brokerDatas.push_back(BrokerData{"C", "broker-b", {{0, "10.0.0.2:10911"}}});
    r.brokerDatas.push_back(BrokerData{"C", "broker-c", {{1, "10.0.0.13:10911"}}});
    co_return r;
  }
  static asio::awaitable<int> port(std::string addr) { co_return addr == "10.0.0.1:10911" ? 8081 : 9081; }
  static asio::awaitable<SendProcessor::PutOutcome> put(Broker* b, SendHeader h, std::string body) {
    b->puts.push_back(std::move(h));
    b->bodies.push_back(std::move(body));
    SendProcessor::PutOutcome out{b->putCode, b->putCode == 0 ? "" : "flush timeout"};
    out.msgId = "0A00000100002A9F0000000000001000";
    out.queueId = b->puts.back().queueId < 0 ? 2 : b->puts.back().queueId;
    out.queueOffset = 41 + static_cast<int64_t>(b->puts.size());
    out.physicalOffset = 4096;
    co_return out;
  }
};

std::string propOf(const SendHeader& h, std::string_view name) {
  return std::string(findEncodedProperty(h.properties, name).value_or("<absent>"));
}

v2::Message message(const std::string& topic, v2::MessageType type, std::string id = "01AABBCCDDEEFF00010000000100000001") {
  v2::Message m;
  m.mutable_topic()->set_name(topic);
  m.set_body("hello");
  auto* sp = m.mutable_system_properties();
  sp->set_message_id(std::move(id));
  sp->set_message_type(type);
  sp->set_tag("TagA");
  sp->add_keys("k1");
  sp->add_keys("k2");
  sp->mutable_born_timestamp()->set_seconds(1700000000);
  sp->set_queue_id(0);
  (*m.mutable_user_properties())["color"] = "red";
  return m;
}

v2::SendMessageResponse send(ServiceHarness& h, std::vector<v2::Message> ms) {
  v2::SendMessageRequest req;
  for (auto& m : ms) *req.add_messages() = std::move(m);
  return h.unary<v2::SendMessageResponse>("SendMessage", req);
}

}  // namespace

TEST_CASE("messaging QueryRoute: every master's gRPC endpoint, queues by permission, accepted types") {
  Broker b;
  ServiceHarness h(b.deps());
  v2::QueryRouteRequest req;
  req.mutable_topic()->set_name("Fifo");
  auto resp = h.unary<v2::QueryRouteResponse>("QueryRoute", req);
  CHECK(resp.status().code() == v2::Code::OK);
  // broker-a: 4 read-write; broker-b: 2 read-write + 1 write-only; broker-c has no master.
  REQUIRE(resp.message_queues_size() == 7);
  const auto& a0 = resp.message_queues(0);
  CHECK(a0.broker().name() == "broker-a");
  CHECK(a0.broker().id() == 0);
  CHECK(a0.broker().endpoints().scheme() == v2::AddressScheme::IPv4);
  CHECK(a0.broker().endpoints().addresses(0).host() == "10.0.0.1");
  CHECK(a0.broker().endpoints().addresses(0).port() == 8081);
  CHECK(a0.permission() == v2::Permission::READ_WRITE);
  REQUIRE(a0.accept_message_types_size() == 1);
  CHECK(a0.accept_message_types(0) == v2::MessageType::FIFO);
  const auto& b0 = resp.message_queues(4);
  CHECK(b0.broker().name() == "broker-b");
  CHECK(b0.id() == 0);
  CHECK(b0.permission() == v2::Permission::WRITE);  // the proxy lists write-only queues first
  CHECK(b0.broker().endpoints().addresses(0).port() == 9081);
  CHECK(resp.message_queues(6).id() == 2);
  CHECK(resp.message_queues(6).permission() == v2::Permission::READ_WRITE);

  req.mutable_topic()->set_name("Orders");  // no message.type attribute: NORMAL
  resp = h.unary<v2::QueryRouteResponse>("QueryRoute", req);
  REQUIRE(resp.message_queues_size() > 0);
  REQUIRE(resp.message_queues(0).accept_message_types_size() == 1);
  CHECK(resp.message_queues(0).accept_message_types(0) == v2::MessageType::NORMAL);
}

TEST_CASE("messaging QueryRoute: unknown topic is TOPIC_NOT_FOUND with the 5.x client's text") {
  Broker b;
  ServiceHarness h(b.deps());
  v2::QueryRouteRequest req;
  req.mutable_topic()->set_name("Nope");
  auto resp = h.unary<v2::QueryRouteResponse>("QueryRoute", req);
  CHECK(resp.status().code() == v2::Code::TOPIC_NOT_FOUND);
  CHECK(static_cast<int>(resp.status().code()) == 40402);
  CHECK(resp.status().message() == "CODE: 17  DESC: No topic route info in name server for the topic: Nope");
  CHECK(resp.message_queues_size() == 0);
}

TEST_CASE("messaging: a request without x-mq-client-id is CLIENT_ID_REQUIRED, on unary calls and Telemetry") {
  Broker b;
  ServiceHarness h(b.deps());
  auto c = h.call("QueryRoute");
  c->meta.clear();
  v2::QueryRouteRequest req;
  req.mutable_topic()->set_name("Orders");
  auto resp = h.unary<v2::QueryRouteResponse>("QueryRoute", req, c);
  CHECK(resp.status().code() == v2::Code::CLIENT_ID_REQUIRED);

  auto t = h.call("Telemetry");
  t->meta.clear();
  h.run("Telemetry", t);
  REQUIRE(t->status);
  CHECK(t->template response<v2::TelemetryCommand>().status().code() == v2::Code::CLIENT_ID_REQUIRED);
}

TEST_CASE("messaging: the lite consumers' RPCs answer gRPC UNIMPLEMENTED") {
  Broker b;
  ServiceHarness h(b.deps());
  for (std::string rpc : {"PullMessage", "UpdateOffset", "GetOffset", "QueryOffset", "SyncLiteSubscription"}) {
    auto c = h.call(rpc);
    h.run(rpc, c);
    REQUIRE(c->status);
    CHECK(c->status->code == grpc::StatusCode::UNIMPLEMENTED);
    CHECK(c->written.empty());
  }
}

TEST_CASE("messaging Telemetry: producer settings answered with the merged settings; producer listed under its topics") {
  Broker b;
  ServiceHarness h(b.deps());
  v2::TelemetryCommand cmd;
  auto* s = cmd.mutable_settings();
  s->set_client_type(v2::ClientType::PRODUCER);
  s->mutable_publishing()->add_topics()->set_name("Orders");
  s->mutable_publishing()->add_topics()->set_name("Tx");
  s->mutable_user_agent()->set_language(v2::Language::NODE_JS);
  s->mutable_user_agent()->set_version("5.0.8");
  auto t = h.call("Telemetry");
  t->requests.push_back(cmd.SerializeAsString());
  h.run("Telemetry", t);
  REQUIRE(t->written.size() == 1);
  auto reply = t->template response<v2::TelemetryCommand>();
  CHECK(reply.status().code() == v2::Code::OK);
  REQUIRE(reply.has_settings());
  const auto& policy = reply.settings().backoff_policy();
  CHECK(policy.max_attempts() == 3);
  REQUIRE(policy.has_exponential_backoff());
  CHECK(policy.exponential_backoff().initial().nanos() == 10000000);
  CHECK(policy.exponential_backoff().max().seconds() == 1);
  CHECK(policy.exponential_backoff().multiplier() == 2);
  CHECK(reply.settings().publishing().max_body_size() == 1024);
  CHECK(reply.settings().publishing().validate_message_type());
  // The stream ended (no more requests queued): the client and its producer channels go again;
  // while it was open they were listed (checked through the registry's record of the client).
  auto client = h.service->clients().find("host@1@0@abc");
  REQUIRE(client);
  CHECK(client->language == "NODE_JS");
  CHECK(client->version == "5.0.8");
  CHECK(client->topics == std::vector<std::string>{"Orders", "Tx"});
  CHECK_FALSE(client->channel);
  CHECK_FALSE(b.clients.producerGroup("Orders"));
}

TEST_CASE("messaging Telemetry: while the stream is open the producer is in the ClientManager; heartbeat and termination") {
  Broker b;
  ServiceHarness h(b.deps());
  v2::Settings s;
  s.set_client_type(v2::ClientType::PRODUCER);
  s.mutable_publishing()->add_topics()->set_name("Tx");
  auto t = h.call("Telemetry");
  h.service->clients().onSettings("cid-1", s, t, "JAVA", "5.0.7");
  auto group = b.clients.producerGroup("Tx");
  REQUIRE(group);
  REQUIRE(group->size() == 1);
  CHECK((*group)[0].clientId == "cid-1");
  CHECK((*group)[0].language == "JAVA");
  CHECK((*group)[0].version == 212 + 200 + 14 + 1);  // MQVersion V5_0_7
  CHECK(b.clients.anyProducerChannel("Tx"));

  auto hb = h.call("Heartbeat");
  hb->meta["x-mq-client-id"] = "cid-1";
  auto hbResp = h.unary<v2::HeartbeatResponse>("Heartbeat", v2::HeartbeatRequest{}, hb);
  CHECK(hbResp.status().code() == v2::Code::OK);

  auto term = h.call("NotifyClientTermination");
  term->meta["x-mq-client-id"] = "cid-1";
  auto termResp = h.unary<v2::NotifyClientTerminationResponse>("NotifyClientTermination",
                                                               v2::NotifyClientTerminationRequest{}, term);
  CHECK(termResp.status().code() == v2::Code::OK);
  CHECK_FALSE(b.clients.producerGroup("Tx"));
  CHECK_FALSE(h.service->clients().find("cid-1"));
}

TEST_CASE("messaging Telemetry: consumer settings carry batch size, polling timeout and the group's attempts") {
  Broker b;
  auto deps = b.deps();
  v2::Settings s;
  s.set_client_type(v2::ClientType::SIMPLE_CONSUMER);
  s.mutable_subscription()->mutable_group()->set_name("G");
  auto merged = mergeSettings(s, deps);
  CHECK(merged.subscription().receive_batch_size() == 32);
  CHECK(merged.subscription().long_polling_timeout().seconds() == 20);
  CHECK_FALSE(merged.subscription().fifo());
  CHECK(merged.backoff_policy().max_attempts() == 6);
  CHECK(merged.backoff_policy().customized_backoff().next(0).seconds() == 1);
}

TEST_CASE("messaging SendMessage NORMAL: a 4.x message with UNIQ_KEY, keys, tag and user properties; group = topic") {
  Broker b;
  ServiceHarness h(b.deps());
  auto resp = send(h, {message("Orders", v2::MessageType::NORMAL)});
  CHECK(resp.status().code() == v2::Code::OK);
  REQUIRE(resp.entries_size() == 1);
  CHECK(resp.entries(0).message_id() == "01AABBCCDDEEFF00010000000100000001");
  CHECK(resp.entries(0).transaction_id() == "01AABBCCDDEEFF00010000000100000001");
  CHECK(resp.entries(0).offset() == 42);
  REQUIRE(b.puts.size() == 1);
  const auto& p = b.puts[0];
  CHECK(p.topic == "Orders");
  CHECK(p.producerGroup == "Orders");
  CHECK(p.queueId == -1);  // the put path picks a write queue; the client's queue 0 is ignored
  CHECK(p.bornTimestamp == 1700000000000LL);
  CHECK(p.sysFlag == 0);
  CHECK(b.bodies[0] == "hello");
  CHECK(propOf(p, "UNIQ_KEY") == "01AABBCCDDEEFF00010000000100000001");
  CHECK(propOf(p, "KEYS") == "k1 k2");
  CHECK(propOf(p, "TAGS") == "TagA");
  CHECK(propOf(p, "color") == "red");
  CHECK(propOf(p, "TRAN_MSG") == "<absent>");
}

TEST_CASE("messaging namespaces: NamespaceUtil's wrap / strip rules, retry and DLQ forms, system names") {
  CHECK(wrapNamespace("ns", "Orders") == "ns%Orders");
  CHECK(wrapNamespace("ns", "%RETRY%G") == "%RETRY%ns%G");
  CHECK(wrapNamespace("ns", "%DLQ%G") == "%DLQ%ns%G");
  CHECK(wrapNamespace("ns", "ns%Orders") == "ns%Orders");  // already in it
  CHECK(wrapNamespace("", "Orders") == "Orders");
  CHECK(wrapNamespace("ns", "TBW102") == "TBW102");  // system topics and groups stay global
  CHECK(wrapNamespace("ns", "CID_RMQ_SYS_TRANS") == "CID_RMQ_SYS_TRANS");
  CHECK(withoutNamespace("ns%Orders", "ns") == "Orders");
  CHECK(withoutNamespace("%RETRY%ns%G", "ns") == "%RETRY%G");
  CHECK(withoutNamespace("other%Orders", "ns") == "other%Orders");
  CHECK(withoutNamespace("Orders", "ns") == "Orders");
}

TEST_CASE("messaging x-mq-namespace: requests name ns%topic inside; answers carry the bare name and the namespace") {
  Broker b;
  b.topics.emplace("ns%Fifo", LocalTopic{"FIFO", 8});
  ServiceHarness h(b.deps());
  auto c = h.call("SendMessage");
  c->meta["x-mq-namespace"] = "ns";
  auto m = message("Fifo", v2::MessageType::FIFO);
  m.mutable_system_properties()->set_message_group("g");
  v2::SendMessageRequest req;
  *req.add_messages() = m;
  auto resp = h.unary<v2::SendMessageResponse>("SendMessage", req, c);
  CHECK(resp.status().code() == v2::Code::OK);  // typed by ns%Fifo (FIFO), not by Fifo
  REQUIRE(b.puts.size() == 1);
  CHECK(b.puts[0].topic == "ns%Fifo");
  CHECK(b.puts[0].producerGroup == "ns%Fifo");

  v2::QueryAssignmentRequest other;  // a Resource's own resource_namespace wins over the header
  other.mutable_topic()->set_name("T");
  other.mutable_topic()->set_resource_namespace("own");
  other.mutable_group()->set_name("G");
  wrapResources(other, "ns");
  CHECK(other.topic().name() == "own%T");
  CHECK(other.group().name() == "ns%G");
  CHECK(other.topic().resource_namespace().empty());

  v2::QueryRouteResponse route;  // answers: stripped, the namespace named
  auto* q = route.add_message_queues();
  q->mutable_topic()->set_name("ns%Fifo");
  route.add_message_queues()->mutable_topic()->set_name("Global");
  unwrapResources(route, "ns");
  CHECK(route.message_queues(0).topic().name() == "Fifo");
  CHECK(route.message_queues(0).topic().resource_namespace() == "ns");
  CHECK(route.message_queues(1).topic().name() == "Global");
  CHECK(route.message_queues(1).topic().resource_namespace().empty());
}

TEST_CASE("messaging SendMessage to a topic the broker does not have: typed NORMAL, as auto-creation makes it") {
  Broker b;
  ServiceHarness h(b.deps());
  for (auto type : {v2::MessageType::FIFO, v2::MessageType::DELAY, v2::MessageType::TRANSACTION}) {
    auto m = message("Fresh", type);
    if (type == v2::MessageType::FIFO) m.mutable_system_properties()->set_message_group("g");
    if (type == v2::MessageType::DELAY) m.mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(4000000000);
    auto resp = send(h, {m});
    CHECK(resp.status().code() == v2::Code::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE);
    CHECK(resp.status().message().find("the expected type is NORMAL") != std::string::npos);
  }
  CHECK(b.puts.empty());
  auto resp = send(h, {message("Fresh", v2::MessageType::NORMAL)});
  CHECK(resp.status().code() == v2::Code::OK);
  REQUIRE(b.puts.size() == 1);
  CHECK(b.puts[0].topic == "Fresh");
}

TEST_CASE("messaging SendMessage GZIP body: stored as zlib with COMPRESSED (4.x readable); bad gzip refused") {
  Broker b;
  ServiceHarness h(b.deps());
  const std::string text = std::string(900, 'a') + "the end";  // compressible, under the 1024 limit
  auto gz = message("Orders", v2::MessageType::NORMAL);
  gz.set_body(grpc::gzipMessage(text));
  gz.mutable_system_properties()->set_body_encoding(v2::Encoding::GZIP);
  auto tiny = message("Orders", v2::MessageType::NORMAL, "01AABBCCDDEEFF00010000000100000002");
  tiny.set_body(grpc::gzipMessage("hi"));  // zlib does not make "hi" smaller: stored as it is
  tiny.mutable_system_properties()->set_body_encoding(v2::Encoding::GZIP);
  auto resp = send(h, {gz, tiny});
  CHECK(resp.status().code() == v2::Code::OK);
  REQUIRE(b.puts.size() == 2);
  CHECK((b.puts[0].sysFlag & sysflag::COMPRESSED) != 0);
  CHECK(b.bodies[0].size() < text.size());
  auto inflated = zlibInflate(b.bodies[0]);
  REQUIRE(inflated);
  CHECK(*inflated == text);
  CHECK(b.puts[1].sysFlag == 0);
  CHECK(b.bodies[1] == "hi");

  auto corrupt = message("Orders", v2::MessageType::NORMAL);
  corrupt.set_body("not gzip at all");
  corrupt.mutable_system_properties()->set_body_encoding(v2::Encoding::GZIP);
  auto overLimit = message("Orders", v2::MessageType::NORMAL);
  overLimit.set_body(grpc::gzipMessage(std::string(1025, 'x')));  // small on the wire, 1025 inflated
  overLimit.mutable_system_properties()->set_body_encoding(v2::Encoding::GZIP);
  for (const auto& m : {corrupt, overLimit}) {
    resp = send(h, {m});
    CHECK(resp.status().code() == v2::Code::MESSAGE_CORRUPTED);
  }
  CHECK(b.puts.size() == 2);
}

TEST_CASE("messaging SendMessage: size limit, type validation, reserved property names, put failures") {
  Broker b;
  ServiceHarness h(b.deps());
  auto big = message("Orders", v2::MessageType::NORMAL);
  big.set_body(std::string(1025, 'x'));
  auto resp = send(h, {big});
  CHECK(resp.status().code() == v2::Code::MESSAGE_BODY_TOO_LARGE);
  CHECK(b.puts.empty());

  auto fifoToNormal = message("Orders", v2::MessageType::FIFO);
  fifoToNormal.mutable_system_properties()->set_message_group("g");
  resp = send(h, {fifoToNormal});
  CHECK(resp.status().code() == v2::Code::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE);
  CHECK(resp.status().message() ==
        "TopicMessageType validate failed, the expected type is NORMAL, but actual type is FIFO");
  resp = send(h, {message("Fifo", v2::MessageType::NORMAL)});
  CHECK(resp.status().code() == v2::Code::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE);

  auto reserved = message("Orders", v2::MessageType::NORMAL);
  (*reserved.mutable_user_properties())["UNIQ_KEY"] = "x";
  resp = send(h, {reserved});
  CHECK(resp.status().code() == v2::Code::ILLEGAL_MESSAGE_PROPERTY_KEY);
  CHECK(b.puts.empty());

  b.putCode = ResponseCode::FLUSH_DISK_TIMEOUT;
  resp = send(h, {message("Orders", v2::MessageType::NORMAL), message("Orders", v2::MessageType::NORMAL, "01FF")});
  CHECK(resp.status().code() == v2::Code::MASTER_PERSISTENCE_TIMEOUT);
  CHECK(resp.entries_size() == 2);
  b.putCode = ResponseCode::SUCCESS;
  resp = send(h, {message("Orders", v2::MessageType::NORMAL), big});
  CHECK(resp.status().code() == v2::Code::MULTIPLE_RESULTS);
  CHECK(resp.entries(0).status().code() == v2::Code::OK);
  CHECK(resp.entries(1).status().code() == v2::Code::MESSAGE_BODY_TOO_LARGE);
}

TEST_CASE("messaging SendMessage FIFO: the message group picks the queue by Guava's consistent hash") {
  Broker b;
  ServiceHarness h(b.deps());
  auto m = message("Fifo", v2::MessageType::FIFO);
  m.mutable_system_properties()->set_message_group("order-17");
  m.mutable_system_properties()->set_queue_id(0);
  send(h, {m, m});
  auto other = m;
  other.mutable_system_properties()->set_message_group("order-18");
  auto resp = send(h, {other});
  CHECK(resp.status().code() == v2::Code::OK);
  REQUIRE(b.puts.size() == 3);
  const int32_t expected = consistentHash(javaStringHash("order-17"), 8);
  CHECK(b.puts[0].queueId == expected);
  CHECK(b.puts[1].queueId == expected);
  CHECK(b.puts[2].queueId == consistentHash(javaStringHash("order-18"), 8));
  CHECK(propOf(b.puts[0], "__SHARDINGKEY") == "order-17");

  auto noGroup = message("Fifo", v2::MessageType::FIFO);
  resp = send(h, {noGroup});
  CHECK(resp.status().code() == v2::Code::ILLEGAL_MESSAGE_GROUP);
}

TEST_CASE("messaging consistentHash: in range, stable, and growing the buckets only moves items to the new one") {
  for (int64_t input : {0LL, 1LL, -7LL, 123456789LL, static_cast<long long>(javaStringHash("order-17"))}) {
    int32_t prev = consistentHash(input, 1);
    CHECK(prev == 0);
    for (int32_t n = 2; n <= 64; ++n) {
      int32_t now = consistentHash(input, n);
      CHECK(now >= 0);
      CHECK(now < n);
      CHECK(now == consistentHash(input, n));
      CHECK((now == prev || now == n - 1));
      prev = now;
    }
  }
}

TEST_CASE("messaging SendMessage DELAY: TIMER_DELIVER_MS and a recall handle; RecallMessage puts the delete marker") {
  Broker b;
  ServiceHarness h(b.deps());
  auto m = message("Later", v2::MessageType::DELAY);
  const int64_t at = nowMillis() + 60000;
  m.mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(at / 1000);
  m.mutable_system_properties()->mutable_delivery_timestamp()->set_nanos(static_cast<int32_t>(at % 1000) * 1000000);
  auto resp = send(h, {m});
  CHECK(resp.status().code() == v2::Code::OK);
  REQUIRE(b.puts.size() == 1);
  CHECK(propOf(b.puts[0], "TIMER_DELIVER_MS") == std::to_string(at));
  const std::string handle = resp.entries(0).recall_handle();
  auto parsed = parseRecallHandle(handle);
  REQUIRE(parsed);
  CHECK(parsed->topic == "Later");
  CHECK(parsed->brokerName == "broker-a");
  CHECK(parsed->deliverMs == at);
  CHECK(parsed->messageId == "01AABBCCDDEEFF00010000000100000001");

  v2::RecallMessageRequest recall;
  recall.mutable_topic()->set_name("Later");
  recall.set_recall_handle(handle);
  auto rr = h.unary<v2::RecallMessageResponse>("RecallMessage", recall);
  CHECK(rr.status().code() == v2::Code::OK);
  CHECK(rr.message_id() == "01AABBCCDDEEFF00010000000100000001");
  REQUIRE(b.puts.size() == 2);
  CHECK(propOf(b.puts[1], "TIMER_DEL_UNIQKEY") == "Later+01AABBCCDDEEFF00010000000100000001");
  CHECK(propOf(b.puts[1], "TIMER_DELIVER_MS") == std::to_string(at));

  recall.set_recall_handle("not-a-handle");
  rr = h.unary<v2::RecallMessageResponse>("RecallMessage", recall);
  CHECK(rr.status().code() == v2::Code::BAD_REQUEST);
  CHECK(b.puts.size() == 2);
}

TEST_CASE("messaging TRANSACTION: half message, then EndTransaction with the half record's offsets") {
  Broker b;
  ServiceHarness h(b.deps());
  auto m = message("Tx", v2::MessageType::TRANSACTION, "01TX");
  m.mutable_system_properties()->mutable_orphaned_transaction_recovery_duration()->set_seconds(30);
  auto resp = send(h, {m});
  CHECK(resp.status().code() == v2::Code::OK);
  REQUIRE(b.puts.size() == 1);
  CHECK(propOf(b.puts[0], "TRAN_MSG") == "true");
  CHECK(propOf(b.puts[0], "PGROUP") == "Tx");
  CHECK(propOf(b.puts[0], "CHECK_IMMUNITY_TIME_IN_SECONDS") == "30");
  CHECK(b.puts[0].sysFlag == sysflag::TRANSACTION_PREPARED_TYPE);

  v2::EndTransactionRequest end;
  end.mutable_topic()->set_name("Tx");
  end.set_message_id("01TX");
  end.set_transaction_id(resp.entries(0).transaction_id());
  end.set_resolution(v2::TransactionResolution::COMMIT);
  end.set_source(v2::TransactionSource::SOURCE_CLIENT);
  auto er = h.unary<v2::EndTransactionResponse>("EndTransaction", end);
  CHECK(er.status().code() == v2::Code::OK);
  REQUIRE(b.ends.size() == 1);
  CHECK(b.ends[0].producerGroup == "Tx");
  CHECK(b.ends[0].commitLogOffset == 4096);
  CHECK(b.ends[0].tranStateTableOffset == 42);
  CHECK(b.ends[0].commitOrRollback == sysflag::TRANSACTION_COMMIT_TYPE);
  CHECK_FALSE(b.ends[0].fromTransactionCheck);

  end.set_transaction_id("unknown");
  er = h.unary<v2::EndTransactionResponse>("EndTransaction", end);
  CHECK(er.status().code() == v2::Code::INVALID_TRANSACTION_ID);
  CHECK(b.ends.size() == 1);
}

TEST_CASE("messaging TelemetryChannel: a CHECK_TRANSACTION_STATE becomes RecoverOrphanedTransactionCommand") {
  asio::io_context io;
  auto call = std::make_shared<FakeCall>(io, "/apache.rocketmq.v2.MessagingService/Telemetry");
  TransactionTable txs;
  TelemetryChannel ch(uint64_t{1} << 63 | 1, "cid", call, txs);
  MessageExt m;
  m.topic = "Tx";
  m.body = "payload";
  m.queueId = 1;
  m.bornHost = HostAddress::ipv4(0x7F000001, 5000);
  m.storeHost = HostAddress::ipv4(0x7F000001, 10911);
  m.putProperty(prop::UNIQ_KEY, "01TX");
  m.putProperty(prop::PGROUP, "Tx");
  m.putProperty(prop::TAGS, "T");
  m.putProperty("color", "red");
  auto req = net::RemotingCommand::request(RequestCode::CHECK_TRANSACTION_STATE);
  req.extFields.set("transactionId", std::string("01TX"));
  req.extFields.set("commitLogOffset", int64_t{777});
  req.extFields.set("tranStateTableOffset", int64_t{9});
  req.body = encodeMessageExt(m);
  ch.sendOneway(std::move(req));
  REQUIRE(call->written.size() == 1);
  auto cmd = call->template response<v2::TelemetryCommand>();
  REQUIRE(cmd.has_recover_orphaned_transaction_command());
  const auto& rec = cmd.recover_orphaned_transaction_command();
  CHECK(rec.transaction_id() == "01TX");
  CHECK(rec.message().topic().name() == "Tx");
  CHECK(rec.message().body() == "payload");
  CHECK(rec.message().system_properties().message_id() == "01TX");
  CHECK(rec.message().system_properties().tag() == "T");
  CHECK(rec.message().system_properties().body_digest().checksum() == md5Hex("payload"));
  CHECK(rec.message().user_properties().at("color") == "red");
  CHECK(rec.message().user_properties().count("PGROUP") == 0);
  auto ref = txs.find("01TX");
  REQUIRE(ref);
  CHECK(ref->commitLogOffset == 777);
  CHECK(ref->tranStateTableOffset == 9);
  CHECK(ref->producerGroup == "Tx");
}

TEST_CASE("messaging ACL: the MQv2-HMAC-SHA1 authorization value") {
  auto c = parseAuthorization("MQv2-HMAC-SHA1 Credential=ak1, SignedHeaders=x-mq-date-time, Signature=0A1B");
  REQUIRE(c);
  CHECK(c->accessKey == "ak1");
  CHECK(c->signatureHex == "0A1B");
  CHECK_FALSE(parseAuthorization("Basic abc"));
  CHECK_FALSE(parseAuthorization("MQv2-HMAC-SHA1 SignedHeaders=x-mq-date-time"));
}
