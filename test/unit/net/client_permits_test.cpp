// RemotingClient's caps on in-flight requests (Java clientAsyncSemaphoreValue /
// clientOnewaySemaphoreValue) against real sockets on 127.0.0.1: a server that holds its answers,
// a peer that reads nothing, killed connections, a dead port, shutdown. Every path gives its
// permit back exactly once: the full count is available again afterwards.
#include <doctest/doctest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <future>
#include <mutex>
#include <thread>

#include "common/response_code.h"
#include "net/async_result.h"
#include "net/remoting_client.h"
#include "unit/net/net_test_util.h"

using namespace rmq;
using namespace rmq::net;
using namespace std::chrono_literals;
using test::ServerFixture;

namespace {
using Handler = asio::awaitable<std::optional<RemotingCommand>>;
using Answer = Result<RemotingCommand>;
constexpr int kHold = 111, kPing = 112, kCloseMe = 113;

// Answers kHold requests only when the test lets it (one gate per request, in arrival order).
struct HoldServer {
  ServerFixture f;
  std::mutex mu;
  std::vector<std::string> arrived;  // request bodies, in arrival order
  std::vector<std::shared_ptr<AsyncResult<bool>>> gates;

  HoldServer() {
    f.dispatcher->registerProcessor(kHold, [this](ConnectionPtr, RemotingCommand req) -> Handler {
      auto gate = std::make_shared<AsyncResult<bool>>();
      {
        std::lock_guard lk(mu);
        arrived.push_back(req.body);
        gates.push_back(gate);
      }
      co_await gate->wait(30s);
      co_return RemotingCommand::response(0, req.body);
    });
    f.dispatcher->registerProcessor(kPing, [](ConnectionPtr, RemotingCommand) -> Handler {
      co_return RemotingCommand::response(0, std::string("pong"));
    });
    f.dispatcher->registerProcessor(kCloseMe, [](ConnectionPtr c, RemotingCommand) -> Handler {
      c->close();
      co_return std::nullopt;
    });
    REQUIRE(f.start());
  }
  ~HoldServer() { releaseAll(); }
  size_t held() {
    std::lock_guard lk(mu);
    return arrived.size();
  }
  std::vector<std::string> order() {
    std::lock_guard lk(mu);
    return arrived;
  }
  void release(size_t i) {
    std::lock_guard lk(mu);
    gates.at(i)->set(true);
  }
  void releaseAll() {
    std::lock_guard lk(mu);
    for (auto& g : gates) g->set(true);
  }
  std::string addr() const { return f.addr(); }
};

// The callers' own executor (a thread of the test), as a producer's io thread would be.
struct Callers {
  asio::io_context ctx;
  asio::executor_work_guard<asio::io_context::executor_type> guard = asio::make_work_guard(ctx);
  std::thread thread{[this] { ctx.run(); }};
  ~Callers() {
    guard.reset();
    ctx.stop();
    thread.join();
  }
};

// A client with a cap of its own, torn down (shutdown, then its pool) before the callers' context.
struct CappedClient {
  IoPool pool{1};
  std::unique_ptr<RemotingClient> client;
  CappedClient(int64_t asyncCap, int64_t onewayCap) {
    pool.start();
    ClientOptions o;
    o.clientAsyncSemaphoreValue = asyncCap;
    o.clientOnewaySemaphoreValue = onewayCap;
    client = std::make_unique<RemotingClient>(pool, o);
  }
  ~CappedClient() {
    client->shutdown();
    std::this_thread::sleep_for(20ms);  // let the posted closes run
    client.reset();
    pool.stop();
  }
};

std::future<Answer> invokeAsync(Callers& on, RemotingClient& client, std::string addr, int code, std::string body,
                                std::chrono::milliseconds timeout) {
  auto promise = std::make_shared<std::promise<Answer>>();
  auto future = promise->get_future();
  asio::co_spawn(on.ctx, [promise, &client, addr, code, body, timeout]() -> asio::awaitable<void> {
    auto req = RemotingCommand::request(code);
    req.body = body;
    promise->set_value(co_await client.invokeAsync(addr, std::move(req), timeout));
  }, asio::detached);
  return future;
}

std::future<Result<void>> invokeOneway(Callers& on, RemotingClient& client, std::string addr, std::string body,
                                       std::chrono::milliseconds timeout) {
  auto promise = std::make_shared<std::promise<Result<void>>>();
  auto future = promise->get_future();
  asio::co_spawn(on.ctx, [promise, &client, addr, body, timeout]() -> asio::awaitable<void> {
    auto req = RemotingCommand::request(kPing);
    req.body = body;
    promise->set_value(co_await client.invokeOneway(addr, std::move(req), timeout));
  }, asio::detached);
  return future;
}

template <class Cond>
bool eventually(Cond cond, std::chrono::milliseconds limit = 10s) {
  for (auto end = std::chrono::steady_clock::now() + limit; std::chrono::steady_clock::now() < end;) {
    if (cond()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return cond();
}

int codeOf(const Answer& a) { return a.ok() ? a->code : a.error().code; }
std::string textOf(const Answer& a) { return a.ok() ? a->remark.value_or("") : a.error().message; }
}  // namespace

TEST_CASE("client async cap: the 5th of 4 waits out its timeout, with no time left it is 'too fast'; sync calls are not capped") {
  HoldServer server;
  Callers callers;
  CappedClient c(4, 65535);
  std::vector<std::future<Answer>> held;
  for (int i = 0; i < 4; ++i)
    held.push_back(invokeAsync(callers, *c.client, server.addr(), kHold, "held-" + std::to_string(i), 10s));
  REQUIRE(eventually([&] { return server.held() == 4; }));
  CHECK(c.client->asyncPermits().available() == 0);

  auto fifth = invokeAsync(callers, *c.client, server.addr(), kHold, "fifth", 300ms).get();
  REQUIRE_FALSE(fifth.ok());
  CHECK(fifth.error().code == ResponseCode::CLIENT_TIMEOUT);
  // "<ms>": the 300 ms less what the (cached) connect took, 0 ms unless the machine is very busy.
  CHECK_MESSAGE(fifth.error().message.starts_with("invokeAsyncImpl tryAcquire semaphore timeout, "), fifth.error().message);
  CHECK_MESSAGE(fifth.error().message.ends_with("ms, waiting thread nums: 0 semaphoreAsyncValue: 0"), fifth.error().message);
  auto sixth = invokeAsync(callers, *c.client, server.addr(), kHold, "sixth", 0ms).get();
  REQUIRE_FALSE(sixth.ok());
  CHECK(sixth.error().code == ResponseCode::CLIENT_TOO_MUCH_REQUEST);
  CHECK(sixth.error().message == "invokeAsyncImpl invoke too fast");
  CHECK(server.held() == 4);  // neither was sent

  // Java's invokeSync takes no permit: a full async cap does not hold it back.
  auto ping = c.client->invokeSync(server.addr(), RemotingCommand::request(kPing), 3s);
  REQUIRE(ping.ok());
  CHECK(ping->remark == "pong");

  server.releaseAll();
  for (int i = 0; i < 4; ++i) {
    auto r = held[size_t(i)].get();
    CHECK_MESSAGE(codeOf(r) == 0, textOf(r));
    CHECK(textOf(r) == "held-" + std::to_string(i));
  }
  CHECK(eventually([&] { return c.client->asyncPermits().available() == 4; }));
  CHECK(c.client->asyncPermits().waiting() == 0);
}

TEST_CASE("client async cap: requests waiting for a permit go in the order they came as answers free permits") {
  HoldServer server;
  Callers callers;
  CappedClient c(1, 65535);
  std::vector<std::future<Answer>> calls;
  calls.push_back(invokeAsync(callers, *c.client, server.addr(), kHold, "r0", 10s));
  REQUIRE(eventually([&] { return server.held() == 1; }));
  for (int i = 1; i <= 3; ++i) {
    calls.push_back(invokeAsync(callers, *c.client, server.addr(), kHold, "r" + std::to_string(i), 10s));
    REQUIRE(eventually([&] { return c.client->asyncPermits().waiting() == i; }));
  }
  for (size_t i = 0; i < 4; ++i) {
    REQUIRE(eventually([&] { return server.held() == i + 1; }));  // exactly one in flight at a time
    CHECK(server.held() == i + 1);
    server.release(i);
    auto r = calls[i].get();
    CHECK_MESSAGE(codeOf(r) == 0, textOf(r));
  }
  CHECK(server.order() == std::vector<std::string>{"r0", "r1", "r2", "r3"});
  CHECK(eventually([&] { return c.client->asyncPermits().available() == 1; }));
}

TEST_CASE("client async cap: permits come back after timeouts, a killed connection, failed connects and shutdown") {
  HoldServer server;
  Callers callers;
  CappedClient c(4, 65535);
  const auto& permits = c.client->asyncPermits();

  for (int round = 0; round < 3; ++round) {  // 12 answer timeouts with a cap of 4
    std::vector<std::future<Answer>> calls;
    for (int i = 0; i < 4; ++i) calls.push_back(invokeAsync(callers, *c.client, server.addr(), kHold, "t", 150ms));
    for (auto& f : calls) {
      auto r = f.get();
      CHECK_MESSAGE(codeOf(r) == ResponseCode::CLIENT_TIMEOUT, textOf(r));
      CHECK_MESSAGE(textOf(r).starts_with("wait response on the channel"), textOf(r));  // the answer's timeout, not the cap's
    }
    REQUIRE(eventually([&] { return permits.available() == 4; }));
  }

  // The server closes the connection under 4 requests in flight.
  size_t before = server.held();
  std::vector<std::future<Answer>> killed;
  for (int i = 0; i < 4; ++i) killed.push_back(invokeAsync(callers, *c.client, server.addr(), kHold, "k", 10s));
  REQUIRE(eventually([&] { return server.held() == before + 4; }));
  auto closer = c.client->invokeSync(server.addr(), RemotingCommand::request(kCloseMe), 5s);
  CHECK_FALSE(closer.ok());
  for (auto& f : killed) CHECK(codeOf(f.get()) == ResponseCode::CLIENT_CONNECTION_CLOSED);
  REQUIRE(eventually([&] { return permits.available() == 4; }));

  // Connects that fail take no permit (Java acquires after the channel is made).
  uint16_t deadPort;
  {
    asio::io_context ctx;
    asio::ip::tcp::acceptor a(ctx, {asio::ip::make_address("127.0.0.1"), 0});
    deadPort = a.local_endpoint().port();
  }
  for (int i = 0; i < 6; ++i) {
    auto r = invokeAsync(callers, *c.client, "127.0.0.1:" + std::to_string(deadPort), kHold, "d", 2s).get();
    CHECK(codeOf(r) == ResponseCode::CLIENT_CONNECT_FAILED);
  }
  CHECK(permits.available() == 4);

  // Shutdown: 4 in flight fail as closed, 2 waiting for a permit give up at once.
  before = server.held();
  std::vector<std::future<Answer>> inFlight, waiting;
  for (int i = 0; i < 4; ++i) inFlight.push_back(invokeAsync(callers, *c.client, server.addr(), kHold, "s", 10s));
  REQUIRE(eventually([&] { return server.held() == before + 4; }));
  for (int i = 0; i < 2; ++i) waiting.push_back(invokeAsync(callers, *c.client, server.addr(), kHold, "w", 10s));
  REQUIRE(eventually([&] { return permits.waiting() == 2; }));
  c.client->shutdown();
  for (auto& f : inFlight) CHECK(codeOf(f.get()) == ResponseCode::CLIENT_CONNECTION_CLOSED);
  for (auto& f : waiting) {
    auto r = f.get();
    CHECK(codeOf(r) == ResponseCode::CLIENT_CONNECT_FAILED);
    CHECK_MESSAGE(textOf(r).ends_with("client shut down"), textOf(r));
  }
  CHECK(eventually([&] { return permits.available() == 4; }));
  CHECK(permits.waiting() == 0);
}

TEST_CASE("client oneway cap: a permit is held until its frame is written; a peer that reads nothing holds them until it is gone") {
  // Written oneways give their permits back.
  {
    HoldServer server;
    Callers callers;
    CappedClient c(65535, 2);
    for (int i = 0; i < 10; ++i) CHECK(invokeOneway(callers, *c.client, server.addr(), "small", 3s).get().ok());
    CHECK(eventually([&] { return c.client->onewayPermits().available() == 2; }));
  }
  // A peer with a small receive buffer that reads nothing: two 8 MiB frames cannot be written.
  asio::io_context ctx;
  asio::ip::tcp::acceptor acceptor(ctx);
  acceptor.open(asio::ip::tcp::v4());
  acceptor.set_option(asio::socket_base::receive_buffer_size(16 * 1024));
  acceptor.bind({asio::ip::make_address("127.0.0.1"), 0});
  acceptor.listen();
  const std::string addr = "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());
  Callers callers;
  CappedClient c(65535, 2);
  const std::string big(8 << 20, 'o');
  REQUIRE(invokeOneway(callers, *c.client, addr, big, 3s).get().ok());
  REQUIRE(invokeOneway(callers, *c.client, addr, big, 3s).get().ok());
  CHECK(c.client->onewayPermits().available() == 0);
  auto third = invokeOneway(callers, *c.client, addr, "third", 300ms).get();
  REQUIRE_FALSE(third.ok());
  CHECK(third.error().code == ResponseCode::CLIENT_TIMEOUT);
  CHECK_MESSAGE(third.error().message.starts_with("invokeOnewayImpl tryAcquire semaphore timeout, 300ms, waiting thread nums: 0 semaphoreOnewayValue: 0"),
                third.error().message);
  auto fourth = invokeOneway(callers, *c.client, addr, "fourth", 0ms).get();
  REQUIRE_FALSE(fourth.ok());
  CHECK(fourth.error().code == ResponseCode::CLIENT_TOO_MUCH_REQUEST);
  CHECK(fourth.error().message == "invokeOnewayImpl invoke too fast");

  asio::ip::tcp::socket peer(ctx);
  acceptor.accept(peer);
  peer.set_option(asio::socket_base::linger(true, 0));  // close with a reset: the client's write fails
  peer.close();
  CHECK(eventually([&] { return c.client->onewayPermits().available() == 2; }));
}
