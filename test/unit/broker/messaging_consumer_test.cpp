// The 5.x consumers' RPCs (ReceiveMessage, AckMessage, ChangeInvisibleDuration,
// ForwardMessageToDeadLetterQueue, QueryAssignment) through in-memory calls (messaging_fake_call.h)
// with a fake POP engine, and the delivered-message mapping (MD5 digest, zlib bodies inflated).
#include <doctest/doctest.h>
#include <zlib.h>

#include "common/message_codec.h"
#include "common/response_code.h"
#include "messaging_fake_call.h"
#include "roles/broker/messaging/message_mapping.h"
#include "roles/broker/messaging/receive_service.h"

using namespace rmq;
using namespace rmq::broker;
using namespace rmq::broker::messaging;
using namespace rmq::broker::messaging::test;

namespace {

std::string zlibOf(const std::string& s) {
  uLongf n = compressBound(s.size());
  std::string out(n, '\0');
  REQUIRE(compress2(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(s.data()), s.size(), 6) ==
          Z_OK);
  out.resize(n);
  return out;
}

std::string storedRecord(const std::string& body, bool compressed, int32_t reconsumeTimes = 0) {
  MessageExt m;
  m.topic = "Orders";
  m.body = compressed ? zlibOf(body) : body;
  m.sysFlag = compressed ? sysflag::COMPRESSED : 0;
  m.queueId = 2;
  m.queueOffset = 77;
  m.bornTimestamp = 1700000000123;
  m.storeTimestamp = 1700000000456;
  REQUIRE(HostAddress::parse("10.0.0.9:5000", m.bornHost));
  REQUIRE(HostAddress::parse("10.0.0.1:10911", m.storeHost));
  m.reconsumeTimes = reconsumeTimes;
  setProperty(m.properties, prop::UNIQ_KEY, "0A0000090000AABBCCDD000000000001");
  setProperty(m.properties, prop::TAGS, "TagA");
  setProperty(m.properties, prop::KEYS, "k1 k2");
  setProperty(m.properties, "user", "u1");
  return encodeMessageExt(m);
}

struct FakePop {
  std::vector<pop::PopRequest> pops;
  std::vector<std::string> acked, changed, dead;
  std::vector<int64_t> changedMs;
  Result<pop::PopResult> next = pop::PopResult{};
  bool handleValid = true;

  PopDeps deps() {
    PopDeps d;
    d.pop = [this](pop::PopRequest r) { return popIt(this, std::move(r)); };
    d.ack = [this](std::string, std::string, std::string h) { return done(this, &FakePop::acked, std::move(h)); };
    d.changeInvisible = [this](std::string, std::string, std::string h, int64_t ms) {
      changedMs.push_back(ms);
      return change(this, std::move(h));
    };
    d.toDeadLetter = [this](std::string, std::string, std::string h) { return done(this, &FakePop::dead, std::move(h)); };
    return d;
  }
  static asio::awaitable<Result<pop::PopResult>> popIt(FakePop* f, pop::PopRequest r) {
    f->pops.push_back(std::move(r));
    co_return f->next;
  }
  static asio::awaitable<Result<void>> done(FakePop* f, std::vector<std::string> FakePop::*list, std::string h) {
    if (!f->handleValid) co_return Error{pop::kInvalidReceiptHandle, "the receipt handle expired"};
    (f->*list).push_back(std::move(h));
    co_return Result<void>{};
  }
  static asio::awaitable<Result<std::string>> change(FakePop* f, std::string h) {
    if (!f->handleValid) co_return Error{pop::kInvalidReceiptHandle, "the receipt handle expired"};
    f->changed.push_back(h);
    co_return h + "-next";
  }
};

struct Cluster {
  FakePop pop;
  std::optional<GroupSettings> group = GroupSettings{false, 3};

  MessagingDeps deps() {
    MessagingDeps d;
    d.clusterName = "C";
    d.brokerName = "broker-a";
    d.maxMessageSize = [] { return 1024; };
    d.queryRoute = [](std::string topic) { return route(std::move(topic)); };
    d.grpcPortOf = [](std::string addr) { return port(std::move(addr)); };
    d.localTopic = [](std::string_view) { return std::optional<LocalTopic>(LocalTopic{"", 4}); };
    d.group = [this](std::string_view) { return group; };
    d.pop = pop.deps();
    return d;
  }
  static asio::awaitable<Result<client::TopicRouteData>> route(std::string topic) {
    client::TopicRouteData r;
    if (topic == "WriteOnly") {
      r.queueDatas.push_back(QueueData{"broker-b", 2, 2, 2, 0});
      r.brokerDatas.push_back(BrokerData{"C", "broker-b", {{0, "10.0.0.2:10911"}}});
      co_return r;
    }
    if (topic != "Orders") co_return Error{ResponseCode::TOPIC_NOT_EXIST, "No topic route info"};
    r.queueDatas.push_back(QueueData{"broker-a", 4, 4, 6, 0});
    r.queueDatas.push_back(QueueData{"broker-b", 2, 2, 2, 0});  // write-only: not assigned
    r.queueDatas.push_back(QueueData{"broker-c", 3, 3, 4, 0});  // read-only
    r.brokerDatas.push_back(BrokerData{"C", "broker-a", {{0, "10.0.0.1:10911"}}});
    r.brokerDatas.push_back(BrokerData{"C", "broker-b", {{0, "10.0.0.2:10911"}}});
    r.brokerDatas.push_back(BrokerData{"C", "broker-c", {{0, "10.0.0.3:10911"}}});
    co_return r;
  }
  static asio::awaitable<int> port(std::string) { co_return 8081; }
};

v2::ReceiveMessageRequest receiveRequest() {
  v2::ReceiveMessageRequest r;
  r.mutable_group()->set_name("G");
  r.mutable_message_queue()->mutable_topic()->set_name("Orders");
  r.mutable_message_queue()->set_id(0);
  r.mutable_message_queue()->mutable_broker()->set_name("broker-a");
  r.mutable_filter_expression()->set_type(v2::FilterType::TAG);
  r.mutable_filter_expression()->set_expression("TagA || TagB");
  r.set_batch_size(16);
  r.mutable_invisible_duration()->set_seconds(15);
  r.mutable_long_polling_timeout()->set_seconds(10);
  return r;
}

std::vector<v2::ReceiveMessageResponse> responses(const FakeCall& c) {
  std::vector<v2::ReceiveMessageResponse> out;
  for (size_t i = 0; i < c.written.size(); ++i) out.push_back(c.response<v2::ReceiveMessageResponse>(i));
  return out;
}

pop::PoppedMessage popped(const std::string& record, const std::string& handle, int32_t attempt) {
  pop::PoppedMessage m;
  m.record = record;
  m.receiptHandle = handle;
  m.deliveryAttempt = attempt;
  m.queueId = 2;
  m.queueOffset = 77;
  return m;
}

asio::awaitable<void> takeInto(ReceiptRenewer& r, std::string handle, std::string& out) {
  out = co_await r.take(std::move(handle));
}

}  // namespace

TEST_CASE("delivered message: MD5 digest of the body, zlib body inflated, handle and attempt") {
  const std::string body(5000, 'z');
  const std::string record = storedRecord(body, /*compressed=*/true, /*reconsumeTimes=*/1);
  auto m = toDeliveredMessage({record, "H1", 2, 2, 77});
  REQUIRE(m);
  CHECK(m->body() == body);
  const auto& sp = m->system_properties();
  CHECK(sp.body_encoding() == v2::Encoding::IDENTITY);
  CHECK(sp.body_digest().type() == v2::DigestType::MD5);
  CHECK(sp.body_digest().checksum() == md5Hex(body));
  CHECK(sp.body_digest().checksum().size() == 32);
  CHECK(sp.receipt_handle() == "H1");
  CHECK(sp.delivery_attempt() == 2);
  CHECK(sp.queue_id() == 2);
  CHECK(sp.queue_offset() == 77);
  CHECK(sp.message_id() == "0A0000090000AABBCCDD000000000001");
  CHECK(sp.tag() == "TagA");
  CHECK(sp.keys_size() == 2);
  CHECK(sp.born_timestamp().seconds() == 1700000000);
  CHECK(sp.born_timestamp().nanos() == 123000000);
  CHECK(sp.store_timestamp().nanos() == 456000000);
  CHECK(sp.message_type() == v2::MessageType::NORMAL);
  CHECK(m->user_properties().at("user") == "u1");
  CHECK(m->user_properties().count("UNIQ_KEY") == 0);

  CHECK(md5Hex("hello") == "5D41402ABC4B2A76B9719D911017C592");
  CHECK_FALSE(toDeliveredMessage({"not a record", "H", 1, 0, 0}));
}

TEST_CASE("planReceive: batch, invisible time, long poll bounded by the deadline, filter") {
  auto now = std::chrono::steady_clock::now();
  auto req = receiveRequest();
  auto plan = planReceive(req, "broker-a", now, now + std::chrono::seconds(4));
  REQUIRE_FALSE(plan.refused);
  CHECK(plan.pop.queueId == -1);
  CHECK(plan.pop.maxNums == 16);
  CHECK(plan.pop.invisibleTime == 15000);
  CHECK(plan.pop.pollTime == 3500);  // 4 s deadline less the answer's 0.5 s
  CHECK(plan.pop.expressionType == "TAG");
  CHECK(plan.pop.expression == "TagA || TagB");

  req.set_batch_size(100);
  req.mutable_filter_expression()->set_type(v2::FilterType::SQL);
  plan = planReceive(req, "broker-a", now, std::chrono::steady_clock::time_point::max());
  CHECK(plan.pop.maxNums == 32);
  CHECK(plan.pop.pollTime == 10000);
  CHECK(plan.pop.expressionType == "SQL92");

  req.set_auto_renew(true);
  req.clear_invisible_duration();
  CHECK(planReceive(req, "broker-a", now, now).pop.invisibleTime == kAutoRenewInvisibleMs);
  CHECK(planReceive(req, "broker-a", now, now).pop.pollTime == 0);

  req.set_auto_renew(false);
  auto refused = planReceive(req, "broker-a", now, now).refused;
  REQUIRE(refused);
  CHECK(refused->code() == v2::Code::ILLEGAL_INVISIBLE_TIME);
  req.mutable_invisible_duration()->set_seconds(13 * 3600);
  CHECK(planReceive(req, "broker-a", now, now).refused->code() == v2::Code::ILLEGAL_INVISIBLE_TIME);
  req.mutable_invisible_duration()->set_seconds(20);
  CHECK(planReceive(req, "broker-b", now, now).refused->code() == v2::Code::NOT_FOUND);
  req.mutable_group()->set_name("");
  CHECK(planReceive(req, "broker-a", now, now).refused->code() == v2::Code::ILLEGAL_CONSUMER_GROUP);
}

TEST_CASE("ReceiveMessage: status OK, the messages, a delivery timestamp; none: MESSAGE_NOT_FOUND") {
  Cluster cluster;
  ServiceHarness s(cluster.deps());
  pop::PopResult found;
  found.status = pop::PopResult::Status::Found;
  found.messages.push_back(popped(storedRecord("one", false), "H-1", 1));
  found.messages.push_back(popped(storedRecord("two", false, 2), "H-2", 3));
  cluster.pop.next = found;

  auto c = s.call("ReceiveMessage");
  c->requests.push_back(receiveRequest().SerializeAsString());
  s.run("ReceiveMessage", c);
  REQUIRE(c->status);
  CHECK(c->status->code == grpc::StatusCode::OK);
  auto rs = responses(*c);
  REQUIRE(rs.size() == 4);
  CHECK(rs[0].status().code() == v2::Code::OK);
  CHECK(rs[1].message().body() == "one");
  CHECK(rs[1].message().system_properties().receipt_handle() == "H-1");
  CHECK(rs[2].message().body() == "two");
  CHECK(rs[2].message().system_properties().delivery_attempt() == 3);
  CHECK(rs[3].has_delivery_timestamp());
  REQUIRE(cluster.pop.pops.size() == 1);
  CHECK(cluster.pop.pops[0].group == "G");
  CHECK(cluster.pop.pops[0].topic == "Orders");

  cluster.pop.next = pop::PopResult{};
  auto none = s.call("ReceiveMessage");
  none->requests.push_back(receiveRequest().SerializeAsString());
  s.run("ReceiveMessage", none);
  rs = responses(*none);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status().code() == v2::Code::MESSAGE_NOT_FOUND);

  cluster.pop.next = Error{ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST, "subscription group [G] does not exist"};
  auto refused = s.call("ReceiveMessage");
  refused->requests.push_back(receiveRequest().SerializeAsString());
  s.run("ReceiveMessage", refused);
  rs = responses(*refused);
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].status().code() == v2::Code::CONSUMER_GROUP_NOT_FOUND);
}

TEST_CASE("ReceiveMessage: messages the stream cannot take are made visible again at once") {
  Cluster cluster;
  pop::PopResult found;
  found.status = pop::PopResult::Status::Found;
  found.messages.push_back(popped(storedRecord("one", false), "H-1", 1));
  found.messages.push_back(popped(storedRecord("two", false), "H-2", 1));
  cluster.pop.next = found;
  std::shared_ptr<FakeCall> c;
  auto d = cluster.deps();
  d.pop.pop = [&](pop::PopRequest r) {
    c->finish({grpc::StatusCode::CANCELLED, "client cancelled"});  // the client went while the pop ran
    return FakePop::popIt(&cluster.pop, std::move(r));
  };
  ServiceHarness s(std::move(d));
  c = s.call("ReceiveMessage");
  c->requests.push_back(receiveRequest().SerializeAsString());
  s.run("ReceiveMessage", c);
  CHECK(c->written.empty());
  CHECK(cluster.pop.changed == std::vector<std::string>{"H-1", "H-2"});
  CHECK(cluster.pop.changedMs == std::vector<int64_t>{1, 1});
}

TEST_CASE("AckMessage / ChangeInvisibleDuration / ForwardMessageToDeadLetterQueue") {
  Cluster cluster;
  ServiceHarness s(cluster.deps());
  v2::AckMessageRequest ack;
  ack.mutable_group()->set_name("G");
  ack.mutable_topic()->set_name("Orders");
  for (auto h : {"H-1", "H-2"}) {
    auto* e = ack.add_entries();
    e->set_message_id(std::string("id-") + h);
    e->set_receipt_handle(h);
  }
  auto a = s.unary<v2::AckMessageResponse>("AckMessage", ack);
  CHECK(a.status().code() == v2::Code::OK);
  REQUIRE(a.entries_size() == 2);
  CHECK(a.entries(1).message_id() == "id-H-2");
  CHECK(a.entries(1).status().code() == v2::Code::OK);
  CHECK(cluster.pop.acked == std::vector<std::string>{"H-1", "H-2"});

  v2::ChangeInvisibleDurationRequest ch;
  ch.mutable_group()->set_name("G");
  ch.mutable_topic()->set_name("Orders");
  ch.set_receipt_handle("H-3");
  ch.mutable_invisible_duration()->set_nanos(5000000);  // a Node push nack: 5 ms
  auto c = s.unary<v2::ChangeInvisibleDurationResponse>("ChangeInvisibleDuration", ch);
  CHECK(c.status().code() == v2::Code::OK);
  CHECK(c.receipt_handle() == "H-3-next");
  CHECK(cluster.pop.changedMs.back() == 5);
  ch.mutable_invisible_duration()->set_nanos(0);
  s.unary<v2::ChangeInvisibleDurationResponse>("ChangeInvisibleDuration", ch);
  CHECK(cluster.pop.changedMs.back() == 1);  // 0 = visible now (a change needs a positive time)

  v2::ForwardMessageToDeadLetterQueueRequest dl;
  dl.mutable_group()->set_name("G");
  dl.mutable_topic()->set_name("Orders");
  dl.set_receipt_handle("H-4");
  CHECK(s.unary<v2::ForwardMessageToDeadLetterQueueResponse>("ForwardMessageToDeadLetterQueue", dl).status().code() ==
        v2::Code::OK);
  CHECK(cluster.pop.dead == std::vector<std::string>{"H-4"});

  cluster.pop.handleValid = false;
  a = s.unary<v2::AckMessageResponse>("AckMessage", ack);
  CHECK(a.status().code() == v2::Code::INVALID_RECEIPT_HANDLE);
  CHECK(a.entries(0).status().code() == v2::Code::INVALID_RECEIPT_HANDLE);
  CHECK(s.unary<v2::ChangeInvisibleDurationResponse>("ChangeInvisibleDuration", ch).status().code() ==
        v2::Code::INVALID_RECEIPT_HANDLE);
  CHECK(s.unary<v2::ForwardMessageToDeadLetterQueueResponse>("ForwardMessageToDeadLetterQueue", dl).status().code() ==
        v2::Code::INVALID_RECEIPT_HANDLE);
}

TEST_CASE("QueryAssignment: per readable broker (queue -1), per read queue for FIFO groups, none -> FORBIDDEN") {
  Cluster cluster;
  ServiceHarness s(cluster.deps());
  v2::QueryAssignmentRequest q;
  q.mutable_topic()->set_name("Orders");
  q.mutable_group()->set_name("G");
  auto r = s.unary<v2::QueryAssignmentResponse>("QueryAssignment", q);
  CHECK(r.status().code() == v2::Code::OK);
  REQUIRE(r.assignments_size() == 2);
  CHECK(r.assignments(0).message_queue().broker().name() == "broker-a");
  CHECK(r.assignments(0).message_queue().id() == -1);
  CHECK(r.assignments(0).message_queue().permission() == v2::Permission::READ_WRITE);
  CHECK(r.assignments(0).message_queue().broker().endpoints().addresses(0).port() == 8081);
  CHECK(r.assignments(1).message_queue().broker().name() == "broker-c");
  CHECK(r.assignments(1).message_queue().permission() == v2::Permission::READ);

  cluster.group = GroupSettings{true, 3};
  r = s.unary<v2::QueryAssignmentResponse>("QueryAssignment", q);
  REQUIRE(r.assignments_size() == 7);  // 4 of broker-a, 3 of broker-c
  CHECK(r.assignments(3).message_queue().id() == 3);
  CHECK(r.assignments(4).message_queue().id() == 0);
  CHECK(r.assignments(4).message_queue().broker().name() == "broker-c");

  q.mutable_topic()->set_name("WriteOnly");
  CHECK(s.unary<v2::QueryAssignmentResponse>("QueryAssignment", q).status().code() == v2::Code::FORBIDDEN);
  q.mutable_topic()->set_name("Missing");
  CHECK(s.unary<v2::QueryAssignmentResponse>("QueryAssignment", q).status().code() == v2::Code::TOPIC_NOT_FOUND);
}

TEST_CASE("ReceiptRenewer: renews ahead of the invisible time, acks map to the latest handle, client gone -> 1 s") {
  FakePop pop;
  asio::io_context io;
  ReceiptRenewer renewer(pop.deps());
  // 10.5 s invisible: inside the 10 s renewal lead at the first tick (1 s).
  renewer.track(io.get_executor(), {"client-1", "G", "Orders", "H-1", 10500});
  renewer.track(io.get_executor(), {"client-2", "G", "Orders", "H-2", 60000});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (pop.changed.empty() && std::chrono::steady_clock::now() < deadline) io.run_for(std::chrono::milliseconds(50));
  REQUIRE(pop.changed == std::vector<std::string>{"H-1"});
  CHECK(pop.changedMs == std::vector<int64_t>{10500});

  std::string latest;
  asio::co_spawn(io, takeInto(renewer, "H-1", latest), asio::detached);
  io.run_for(std::chrono::milliseconds(50));
  CHECK(latest == "H-1-next");  // the client's first handle acts on the renewal
  CHECK(renewer.size() == 1);

  renewer.clientGone("client-2");
  while (pop.changed.size() < 2 && std::chrono::steady_clock::now() < deadline) io.run_for(std::chrono::milliseconds(50));
  REQUIRE(pop.changed.size() == 2);
  CHECK(pop.changed[1] == "H-2");
  CHECK(pop.changedMs[1] == 1000);
  CHECK(renewer.size() == 0);
}
