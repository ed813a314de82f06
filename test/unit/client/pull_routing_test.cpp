// Broker-node selection as the Java 4.9 client does it (PullAPIWrapper, findBrokerAddressInSubscribe,
// RemoteBrokerOffsetStore), against synthetic routes: pure lookups, then a fake name server and
// fake master/slave brokers on loopback that record which node each request reached.
#include <doctest/doctest.h>

#include <mutex>
#include <vector>

#include "client/pull_api.h"
#include "client/consumer/pull_consumer.h"
#include "client/route.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "unit/client/fake_namesrv.h"
#include "unit/net/net_test_util.h"

using namespace rmq;
using namespace rmq::client;
using rmq::client::test::FakeNamesrv;

TEST_CASE("findBrokerInSubscribe: asked id, slave id + 1, else the lowest id unless onlyThisBroker") {
  std::map<int64_t, std::string> both{{0, "m:1"}, {1, "s:1"}};
  auto r = findBrokerInSubscribe(both, 0, false);
  REQUIRE(r);
  CHECK(r->addr == "m:1");
  CHECK_FALSE(r->slave);
  r = findBrokerInSubscribe(both, 1, false);
  REQUIRE(r);
  CHECK(r->addr == "s:1");
  CHECK(r->slave);
  // whichBrokerWhenConsumeSlowly = 1 but only slave 2 exists: Java tries id + 1.
  std::map<int64_t, std::string> slave2{{0, "m:1"}, {2, "s:2"}};
  r = findBrokerInSubscribe(slave2, 1, false);
  REQUIRE(r);
  CHECK(r->addr == "s:2");
  CHECK(r->slave);
  // Suggested slave 5 does not exist: falls back to the first (lowest) id, the master.
  r = findBrokerInSubscribe(slave2, 5, false);
  REQUIRE(r);
  CHECK(r->addr == "m:1");
  CHECK_FALSE(r->slave);
  CHECK_FALSE(findBrokerInSubscribe(slave2, 5, true));
  // Master gone from the route: pulls and offsets move to the slave, flagged as a slave.
  std::map<int64_t, std::string> slaveOnly{{1, "s:1"}};
  CHECK_FALSE(findBrokerInSubscribe(slaveOnly, 0, true));
  r = findBrokerInSubscribe(slaveOnly, 0, false);
  REQUIRE(r);
  CHECK(r->addr == "s:1");
  CHECK(r->slave);
  CHECK_FALSE(findBrokerInSubscribe({}, 0, false));
}

TEST_CASE("BrokerData::selectAddr: the master, else one of the slaves") {
  BrokerData b;
  CHECK(b.selectAddr() == nullptr);
  b.brokerAddrs = {{0, "m:1"}, {1, "s:1"}};
  CHECK(*b.selectAddr() == "m:1");
  b.brokerAddrs = {{1, "s:1"}, {2, "s:2"}};
  for (int i = 0; i < 20; ++i) {
    std::string a = *b.selectAddr();
    CHECK((a == "s:1" || a == "s:2"));
  }
}

TEST_CASE("PullFromWhichNode: master until a response suggests otherwise, per queue") {
  PullFromWhichNode nodes;
  MessageQueue q0{"T", "b", 0}, q1{"T", "b", 1};
  CHECK(nodes.recalculate(q0) == 0);
  nodes.update(q0, 1);
  CHECK(nodes.recalculate(q0) == 1);
  CHECK(nodes.recalculate(q1) == 0);
  nodes.update(q0, 0);
  CHECK(nodes.recalculate(q0) == 0);
}

namespace {

// A fake broker node: answers every request, records (code, sysFlag) of what reached it.
struct FakeBroker {
  struct Seen {
    int code;
    int64_t sysFlag;
    int64_t commitOffset;
  };
  explicit FakeBroker(int64_t suggest) : suggest(suggest) {
    fx.dispatcher->setDefaultProcessor(
        [this](net::ConnectionPtr, net::RemotingCommand req) -> asio::awaitable<std::optional<net::RemotingCommand>> {
          {
            std::lock_guard lk(mu);
            seen.push_back({req.code, req.extFields.getInt("sysFlag").value_or(-1),
                            req.extFields.getInt("commitOffset").value_or(-1)});
          }
          if (req.code == RequestCode::PULL_MESSAGE) {
            auto resp = net::RemotingCommand::response(ResponseCode::PULL_NOT_FOUND);
            resp.extFields.set("suggestWhichBrokerId", this->suggest.load());
            resp.extFields.set("nextBeginOffset", req.extFields.getInt("queueOffset").value_or(0));
            resp.extFields.set("minOffset", int64_t{0});
            resp.extFields.set("maxOffset", int64_t{0});
            co_return resp;
          }
          if (req.code == RequestCode::QUERY_CONSUMER_OFFSET || req.code == RequestCode::GET_MAX_OFFSET) {
            auto resp = net::RemotingCommand::response(ResponseCode::SUCCESS);
            resp.extFields.set("offset", int64_t{7});
            co_return resp;
          }
          co_return net::RemotingCommand::response(ResponseCode::SUCCESS);
        });
    REQUIRE(fx.start());
  }
  std::vector<Seen> take(int code) {
    std::lock_guard lk(mu);
    std::vector<Seen> out, rest;
    for (auto& s : seen) (s.code == code ? out : rest).push_back(s);
    seen = rest;
    return out;
  }
  std::atomic<int64_t> suggest;
  std::mutex mu;
  std::vector<Seen> seen;
  net::test::ServerFixture fx;
};


}  // namespace

TEST_CASE("pull consumer follows suggestWhichBrokerId to the slave and back; offsets stay on the master") {
  FakeBroker master(1), slave(0);  // master: "read from slave 1"; slave: "back to the master"
  FakeNamesrv ns;
  ns.setBrokers({{0, master.fx.addr()}, {1, slave.fx.addr()}});
  PullConsumerOptions o;
  o.group = "g";
  o.client.namesrvAddr = ns.fx.addr();
  PullConsumer c(o);
  REQUIRE(c.start().ok());
  auto mqs = c.fetchSubscribeMessageQueues("T");
  REQUIRE(mqs.ok());
  REQUIRE(mqs->size() == 1);
  MessageQueue mq = mqs->front();

  auto r = c.pull(mq, "*", 0, 32);
  REQUIRE(r.ok());
  CHECK(r->suggestWhichBrokerId == 1);
  CHECK(master.take(RequestCode::PULL_MESSAGE).size() == 1);
  r = c.pull(mq, "*", 0, 32);
  REQUIRE(r.ok());
  CHECK(slave.take(RequestCode::PULL_MESSAGE).size() == 1);  // followed the suggestion
  CHECK(master.take(RequestCode::PULL_MESSAGE).empty());
  r = c.pull(mq, "*", 0, 32);  // the slave suggested the master
  REQUIRE(r.ok());
  CHECK(master.take(RequestCode::PULL_MESSAGE).size() == 1);

  // Consumer offsets: the master while it is in the route.
  REQUIRE(c.updateConsumeOffset(mq, 5).ok());
  auto off = c.fetchConsumeOffset(mq);
  REQUIRE(off.ok());
  CHECK(*off == 7);
  CHECK(master.take(RequestCode::UPDATE_CONSUMER_OFFSET).size() == 1);
  CHECK(master.take(RequestCode::QUERY_CONSUMER_OFFSET).size() == 1);
  CHECK(slave.take(RequestCode::UPDATE_CONSUMER_OFFSET).empty());
  c.shutdown();
}

TEST_CASE("master missing from the route: pulls and consumer offsets go to the slave, without commit flag") {
  FakeBroker master(0), slave(0);
  FakeNamesrv ns;
  ns.setBrokers({{1, slave.fx.addr()}});  // only the slave is registered
  PullConsumerOptions o;
  o.group = "g";
  o.client.namesrvAddr = ns.fx.addr();
  PullConsumer c(o);
  REQUIRE(c.start().ok());
  MessageQueue mq{"T", "b", 0};
  REQUIRE(c.fetchSubscribeMessageQueues("T").ok());
  auto r = c.pull(mq, "*", 3, 32);
  REQUIRE(r.ok());
  auto pulls = slave.take(RequestCode::PULL_MESSAGE);
  REQUIRE(pulls.size() == 1);
  CHECK((pulls[0].sysFlag & kPullCommitOffset) == 0);
  // RemoteBrokerOffsetStore: master not in the route -> refresh -> whichever node is left.
  REQUIRE(c.updateConsumeOffset(mq, 9).ok());
  CHECK(slave.take(RequestCode::UPDATE_CONSUMER_OFFSET).size() == 1);
  auto off = c.fetchConsumeOffset(mq);
  REQUIRE(off.ok());
  CHECK(slave.take(RequestCode::QUERY_CONSUMER_OFFSET).size() == 1);
  // Queue offsets (max/min) too: the slave answers them while the master is gone (Java's MQAdminImpl
  // would fail with "broker not exist"; see broker_api.h).
  auto max = c.maxOffset(mq);
  CHECK(max.ok());
  CHECK(slave.take(RequestCode::GET_MAX_OFFSET).size() == 1);
  CHECK(master.take(RequestCode::PULL_MESSAGE).empty());
  c.shutdown();
}

TEST_CASE("pullKernel clears the commit-offset flag only for a slave") {
  FakeBroker master(1), slave(0);
  FakeNamesrv ns;
  ns.setBrokers({{0, master.fx.addr()}, {1, slave.fx.addr()}});
  PullConsumerOptions o;
  o.group = "g";
  o.client.namesrvAddr = ns.fx.addr();
  PullConsumer c(o);  // used for its ClientInstance
  REQUIRE(c.start().ok());
  REQUIRE(c.fetchSubscribeMessageQueues("T").ok());
  MessageQueue mq{"T", "b", 0};
  PullFromWhichNode nodes;
  PullMessageHeader h;
  h.consumerGroup = "g";
  h.topic = "T";
  h.queueId = 0;
  h.maxMsgNums = 1;
  h.sysFlag = kPullCommitOffset | kPullSubscription;
  h.commitOffset = 4;
  h.subscription = "*";
  auto pullOnce = [&] {
    return c.instance().runSync(pullKernel(c.instance(), nodes, mq, h, std::chrono::milliseconds(3000), nullptr));
  };
  REQUIRE(pullOnce().ok());
  auto m = master.take(RequestCode::PULL_MESSAGE);
  REQUIRE(m.size() == 1);
  CHECK((m[0].sysFlag & kPullCommitOffset) != 0);
  CHECK(nodes.recalculate(mq) == 1);
  REQUIRE(pullOnce().ok());
  auto s = slave.take(RequestCode::PULL_MESSAGE);
  REQUIRE(s.size() == 1);
  CHECK((s[0].sysFlag & kPullCommitOffset) == 0);
  CHECK((s[0].sysFlag & kPullSubscription) != 0);
  c.shutdown();
}

TEST_CASE("pullKernel in InvokeMode::Async (the push consumer's pulls, Java pullMessageAsync) needs an async permit; Sync pulls do not") {
  FakeBroker master(0);
  FakeNamesrv ns;
  ns.setBrokers({{0, master.fx.addr()}});
  PullConsumerOptions o;
  o.group = "g";
  o.client.namesrvAddr = ns.fx.addr();
  o.client.clientAsyncSemaphoreValue = 0;  // no async request may ever be in flight
  PullConsumer c(o);  // used for its ClientInstance
  REQUIRE(c.start().ok());
  REQUIRE(c.fetchSubscribeMessageQueues("T").ok());
  MessageQueue mq{"T", "b", 0};
  PullFromWhichNode nodes;
  PullMessageHeader h;
  h.consumerGroup = "g";
  h.topic = "T";
  h.queueId = 0;
  h.maxMsgNums = 1;
  h.subscription = "*";
  const std::chrono::milliseconds timeout(200);
  auto async = c.instance().runSync(pullKernel(c.instance(), nodes, mq, h, timeout, nullptr, InvokeMode::Async));
  REQUIRE_FALSE(async.ok());
  CHECK(async.error().code == ResponseCode::CLIENT_TIMEOUT);
  CHECK_MESSAGE(async.error().message.starts_with("invokeAsyncImpl tryAcquire semaphore timeout, "), async.error().message);
  CHECK(master.take(RequestCode::PULL_MESSAGE).empty());
  auto sync = c.instance().runSync(pullKernel(c.instance(), nodes, mq, h, timeout, nullptr));
  CHECK(sync.ok());
  CHECK(master.take(RequestCode::PULL_MESSAGE).size() == 1);
  c.shutdown();
}
