// The producer's async sends under ClientConfig::clientAsyncSemaphoreValue, as Java's
// DefaultMQProducer with NettyClientConfig.clientAsyncSemaphoreValue: a fake name server and a fake
// broker on 127.0.0.1 that holds the answers to some sends.
#include <doctest/doctest.h>

#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "client/producer/producer.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "net/async_result.h"
#include "unit/client/fake_namesrv.h"

using namespace rmq;
using namespace rmq::client;
using namespace std::chrono_literals;
using rmq::client::test::FakeNamesrv;

namespace {
using Handler = asio::awaitable<std::optional<net::RemotingCommand>>;

// Answers everything at once, except sends whose body starts with "hold": those wait for release().
struct HoldingBroker {
  HoldingBroker() {
    fx.dispatcher->setDefaultProcessor([this](net::ConnectionPtr, net::RemotingCommand req) -> Handler {
      if (req.code != RequestCode::SEND_MESSAGE_V2) co_return net::RemotingCommand::response(ResponseCode::SUCCESS);
      if (req.body.starts_with("hold")) {
        {
          std::lock_guard lk(mu);
          held.push_back(req.body);
        }
        co_await gate->wait(30s);
      }
      auto resp = net::RemotingCommand::response(ResponseCode::SUCCESS);
      resp.extFields.set("msgId", "0A00000100002A9F0000000000000000");
      resp.extFields.set("queueId", int64_t{0});
      resp.extFields.set("queueOffset", int64_t{0});
      co_return resp;
    });
    REQUIRE(fx.start());
  }
  ~HoldingBroker() { release(); }
  size_t heldCount() {
    std::lock_guard lk(mu);
    return held.size();
  }
  void release() { gate->set(true); }

  std::mutex mu;
  std::vector<std::string> held;
  std::shared_ptr<net::AsyncResult<bool>> gate = std::make_shared<net::AsyncResult<bool>>();
  net::test::ServerFixture fx;
};

template <class Cond>
bool eventually(Cond cond) {
  for (int i = 0; i < 2000 && !cond(); ++i) std::this_thread::sleep_for(5ms);
  return cond();
}

Message message(std::string body) {
  Message m;
  m.topic = "CapTopic";
  m.body = std::move(body);
  return m;
}
}  // namespace

TEST_CASE("producer sendAsync over clientAsyncSemaphoreValue: the callback gets Java's too-much-request error; sync sends go on") {
  HoldingBroker broker;
  FakeNamesrv ns;
  ns.setBrokers({{0, broker.fx.addr()}});
  ProducerOptions o;
  o.group = "cap-group";
  o.client.namesrvAddr = ns.fx.addr();
  o.client.clientAsyncSemaphoreValue = 4;
  Producer producer(o);
  REQUIRE(producer.start().ok());
  REQUIRE(producer.fetchPublishQueues("CapTopic").ok());  // route cached: the sends below only send
  const auto& permits = producer.instance().remoting().asyncPermits();

  std::vector<std::promise<Result<SendResult>>> done(5);
  for (int i = 0; i < 4; ++i)
    producer.sendAsync(message("hold-" + std::to_string(i)), [&, i](Result<SendResult> r) { done[size_t(i)].set_value(r); },
                       10s);
  REQUIRE(eventually([&] { return broker.heldCount() == 4; }));
  CHECK(permits.available() == 0);

  // The 5th waits its 400 ms for a permit; Java's retries then find no time left, and the callback
  // (onException in Java; nothing is thrown) gets RemotingTooMuchRequestException.
  producer.sendAsync(message("hold-5th"), [&](Result<SendResult> r) { done[4].set_value(r); }, 400ms);
  auto fifth = done[4].get_future().get();
  REQUIRE_FALSE(fifth.ok());
  CHECK(fifth.error().code == ResponseCode::CLIENT_TOO_MUCH_REQUEST);
  const auto& text = fifth.error().message;
  CHECK_MESSAGE((text == "invokeAsync call the addr[" + broker.fx.addr() + "] timeout" || text == "invokeAsyncImpl invoke too fast"),
                text);
  CHECK(broker.heldCount() == 4);  // the 5th never reached the broker

  // Synchronous sends take no permit.
  auto sync = producer.send(message("sync"));
  REQUIRE_MESSAGE(sync.ok(), (sync.ok() ? "" : sync.error().message));
  CHECK(sync->status == SendStatus::SEND_OK);

  broker.release();
  for (int i = 0; i < 4; ++i) {
    auto r = done[size_t(i)].get_future().get();
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    CHECK(r->status == SendStatus::SEND_OK);
  }
  CHECK(eventually([&] { return permits.available() == 4; }));
  CHECK(permits.waiting() == 0);
  producer.shutdown();
}
