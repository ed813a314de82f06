// ClientManager registries and NOTIFY_CONSUMER_IDS_CHANGED pushes, with a recording connection.
#include <doctest/doctest.h>

#include <thread>

#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/clients/client_manager.h"

using namespace rmq;
using namespace rmq::broker;

namespace {

class RecordingConnection : public net::Connection {
 public:
  explicit RecordingConnection(uint64_t id) : id_(id), addr_("127.0.0.1:" + std::to_string(40000 + id)) {}
  uint64_t id() const override { return id_; }
  const std::string& remoteAddress() const override { return addr_; }
  const std::string& localAddress() const override { return addr_; }
  bool isOpen() const override { return open_; }
  void close() override { open_ = false; }
  asio::awaitable<Result<net::RemotingCommand>> invoke(net::RemotingCommand, std::chrono::milliseconds) override {
    co_return makeError(ResponseCode::CLIENT_CONNECTION_CLOSED, "test");
  }
  void sendOneway(net::RemotingCommand request) override { pushed.push_back(std::move(request)); }
  void sendResponse(const net::RemotingCommand&, net::RemotingCommand) override {}

  std::vector<net::RemotingCommand> pushed;

 private:
  uint64_t id_;
  std::string addr_;
  bool open_ = true;
};

ClientChannel channelOf(const std::shared_ptr<RecordingConnection>& c, std::string clientId) {
  return ClientChannel{c, std::move(clientId), "JAVA", 407, std::chrono::steady_clock::now()};
}

ConsumerRegistration reg(std::string group, std::vector<std::string> topics) {
  ConsumerRegistration r;
  r.group = std::move(group);
  for (auto& t : topics) {
    SubscriptionData s;
    s.topic = t;
    s.subVersion = 1;
    r.subscriptions.push_back(s);
  }
  return r;
}

}  // namespace

TEST_CASE("consumer join notifies every member of the group, repeat heartbeat does not") {
  ClientManager mgr(true);
  auto a = std::make_shared<RecordingConnection>(1);
  auto b = std::make_shared<RecordingConnection>(2);
  CHECK(mgr.registerConsumer(reg("g1", {"T"}), channelOf(a, "cidA")));
  REQUIRE(a->pushed.size() == 1);
  CHECK(a->pushed[0].code == RequestCode::NOTIFY_CONSUMER_IDS_CHANGED);
  CHECK(a->pushed[0].extFields.get("consumerGroup") == "g1");
  CHECK(a->pushed[0].serializeType == net::SerializeType::Json);

  CHECK_FALSE(mgr.registerConsumer(reg("g1", {"T"}), channelOf(a, "cidA")));  // same channel, same subs
  CHECK(a->pushed.size() == 1);

  CHECK(mgr.registerConsumer(reg("g1", {"T"}), channelOf(b, "cidB")));
  CHECK(a->pushed.size() == 2);
  CHECK(b->pushed.size() == 1);
  auto ids = mgr.consumerIds("g1");
  std::sort(ids.begin(), ids.end());
  CHECK(ids == std::vector<std::string>{"cidA", "cidB"});
}

TEST_CASE("subscription changes: new topic notifies, dropped topic removed, higher subVersion replaces") {
  ClientManager mgr(true);
  auto a = std::make_shared<RecordingConnection>(1);
  mgr.registerConsumer(reg("g", {"T1"}), channelOf(a, "c"));
  CHECK(mgr.registerConsumer(reg("g", {"T1", "T2"}), channelOf(a, "c")));
  CHECK(mgr.findSubscription("g", "T2").has_value());
  CHECK(mgr.registerConsumer(reg("g", {"T2"}), channelOf(a, "c")));
  CHECK_FALSE(mgr.findSubscription("g", "T1").has_value());

  auto r = reg("g", {"T2"});
  r.subscriptions[0].subVersion = 5;
  r.subscriptions[0].subString = "TagA";
  CHECK_FALSE(mgr.registerConsumer(r, channelOf(a, "c")));  // replaced silently
  CHECK(mgr.findSubscription("g", "T2")->subString == "TagA");
  r.subscriptions[0].subVersion = 3;  // older versions are ignored
  r.subscriptions[0].subString = "Old";
  mgr.registerConsumer(r, channelOf(a, "c"));
  CHECK(mgr.findSubscription("g", "T2")->subString == "TagA");
  CHECK(mgr.consumerGroupsOfTopic("T2") == std::vector<std::string>{"g"});
}

TEST_CASE("unregister and connection close drop the channel and notify the rest") {
  ClientManager mgr(true);
  auto a = std::make_shared<RecordingConnection>(1);
  auto b = std::make_shared<RecordingConnection>(2);
  mgr.registerConsumer(reg("g", {"T"}), channelOf(a, "A"));
  mgr.registerConsumer(reg("g", {"T"}), channelOf(b, "B"));
  mgr.registerProducer("pg", channelOf(a, "A"));
  size_t before = b->pushed.size();
  mgr.onConnectionClosed(a->id());
  CHECK(mgr.consumerIds("g") == std::vector<std::string>{"B"});
  CHECK(b->pushed.size() == before + 1);
  CHECK_FALSE(mgr.producerGroup("pg").has_value());
  mgr.unregisterConsumer("g", b->id());
  CHECK(mgr.consumerIds("g").empty());
  CHECK_FALSE(mgr.consumerGroup("g").has_value());
}

TEST_CASE("channels silent longer than the timeout expire and are closed") {
  ClientManager mgr(false);
  auto a = std::make_shared<RecordingConnection>(1);
  auto b = std::make_shared<RecordingConnection>(2);
  auto old = channelOf(a, "A");
  old.lastUpdate -= std::chrono::seconds(200);
  mgr.registerConsumer(reg("g", {"T"}), old);
  mgr.registerConsumer(reg("g", {"T"}), channelOf(b, "B"));
  mgr.registerProducer("pg", old);
  CHECK(mgr.scanExpired(std::chrono::seconds(120)) == 1);
  CHECK_FALSE(a->isOpen());
  CHECK(b->isOpen());
  CHECK(mgr.consumerIds("g") == std::vector<std::string>{"B"});
  CHECK_FALSE(mgr.producerGroup("pg").has_value());
  CHECK(b->pushed.empty());  // notifications disabled
}
