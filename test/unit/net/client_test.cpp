// RemotingClient against a real RemotingServer on loopback.
#include <doctest/doctest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <future>
#include <thread>

#include "common/request_code.h"
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
constexpr int kPing = 103, kNever = 106, kAskClient = 107, kCloseMe = 108;

void registerPing(Dispatcher& d) {
  d.registerProcessor(kPing, [](ConnectionPtr c, RemotingCommand req) -> Handler {
    auto resp = RemotingCommand::response(0, std::string("pong"));
    resp.extFields.set("connId", static_cast<int64_t>(c->id()));
    resp.body = req.body;
    co_return resp;
  });
}

// A client with its own pool, torn down before the server fixture.
struct ClientSide {
  IoPool pool{1};
  std::unique_ptr<RemotingClient> client;
  explicit ClientSide(ClientOptions o = {}) {
    pool.start();
    client = std::make_unique<RemotingClient>(pool, o);
  }
  ~ClientSide() {
    client->shutdown();
    std::this_thread::sleep_for(20ms);  // let the posted closes run
    client.reset();
    pool.stop();
  }
};
}  // namespace

TEST_CASE("invokeSync round trip; the connection is cached and re-made after a close") {
  ServerFixture f;
  registerPing(*f.dispatcher);
  REQUIRE(f.start());
  ClientSide c;
  auto req = RemotingCommand::request(kPing);
  req.body = "abc";
  auto r1 = c.client->invokeSync(f.addr(), req, 3s);
  REQUIRE_MESSAGE(r1.ok(), (r1.ok() ? "" : r1.error().message));
  CHECK(r1->remark == "pong");
  CHECK(r1->body == "abc");
  auto r2 = c.client->invokeSync(f.addr(), RemotingCommand::request(kPing), 3s);
  REQUIRE(r2.ok());
  CHECK(r2->extFields.get("connId") == r1->extFields.get("connId"));
  c.client->closeConnection(f.addr());
  auto r3 = c.client->invokeSync(f.addr(), RemotingCommand::request(kPing), 3s);
  REQUIRE(r3.ok());
  CHECK(r3->extFields.get("connId") != r1->extFields.get("connId"));
}

TEST_CASE("invoke timeout and close-fails-waiters") {
  ServerFixture f;
  auto gate = std::make_shared<AsyncResult<bool>>();
  f.dispatcher->registerProcessor(kNever, [gate](ConnectionPtr, RemotingCommand) -> Handler {
    co_await gate->wait(10s);
    co_return RemotingCommand::response(0);
  });
  f.dispatcher->registerProcessor(kCloseMe, [](ConnectionPtr c, RemotingCommand) -> Handler {
    c->close();
    co_return std::nullopt;
  });
  REQUIRE(f.start());
  ClientSide c;
  auto r = c.client->invokeSync(f.addr(), RemotingCommand::request(kNever), 200ms);
  REQUIRE(!r.ok());
  CHECK(r.error().code == ResponseCode::CLIENT_TIMEOUT);
  auto closed = c.client->invokeSync(f.addr(), RemotingCommand::request(kCloseMe), 5s);
  REQUIRE(!closed.ok());
  CHECK(closed.error().code == ResponseCode::CLIENT_CONNECTION_CLOSED);
  gate->set(true);
}

TEST_CASE("connect failure is a CLIENT_CONNECT_FAILED value") {
  uint16_t deadPort;
  {
    asio::io_context ctx;
    asio::ip::tcp::acceptor a(ctx, {asio::ip::make_address("127.0.0.1"), 0});
    deadPort = a.local_endpoint().port();
  }
  ClientSide c;
  auto r = c.client->invokeSync("127.0.0.1:" + std::to_string(deadPort), RemotingCommand::request(kPing), 2s);
  REQUIRE(!r.ok());
  CHECK(r.error().code == ResponseCode::CLIENT_CONNECT_FAILED);
  auto bad = c.client->invokeSync("no-port", RemotingCommand::request(kPing), 2s);
  REQUIRE(!bad.ok());
  CHECK(bad.error().code == ResponseCode::CLIENT_CONNECT_FAILED);
}

TEST_CASE("server-initiated request is answered by the client's dispatcher") {
  ServerFixture f;
  f.dispatcher->registerProcessor(kAskClient, [](ConnectionPtr c, RemotingCommand) -> Handler {
    auto ask = RemotingCommand::request(RequestCode::NOTIFY_CONSUMER_IDS_CHANGED);
    ask.extFields.set("consumerGroup", "G1");
    auto answer = co_await c->invoke(std::move(ask), 3s);
    if (!answer) co_return RemotingCommand::response(1, answer.error().message);
    co_return RemotingCommand::response(0, answer->remark);
  });
  REQUIRE(f.start());
  ClientSide c;
  c.client->dispatcher().registerProcessor(RequestCode::NOTIFY_CONSUMER_IDS_CHANGED,
                                           [](ConnectionPtr, RemotingCommand req) -> Handler {
    co_return RemotingCommand::response(0, "client saw " + std::string(req.extFields.get("consumerGroup")));
  });
  auto r = c.client->invokeSync(f.addr(), RemotingCommand::request(kAskClient), 5s);
  REQUIRE(r.ok());
  CHECK(r->code == 0);
  CHECK(r->remark == "client saw G1");
}

TEST_CASE("awaiting from a foreign io_context: concurrent first callers share one connection") {
  ServerFixture f;
  registerPing(*f.dispatcher);
  REQUIRE(f.start());
  ClientSide c;
  asio::io_context mine;  // the caller's own executor, run on this test thread
  std::vector<ConnectionPtr> conns;
  std::vector<std::string> remarks;
  auto caller = [&]() -> asio::awaitable<void> {
    auto conn = co_await c.client->connect(f.addr());
    if (conn) conns.push_back(conn.value());
    auto r = co_await c.client->invoke(f.addr(), RemotingCommand::request(kPing), 3s);
    remarks.push_back(r ? *r->remark : r.error().message);
  };
  for (int i = 0; i < 4; ++i) asio::co_spawn(mine, caller(), asio::detached);
  mine.run_for(10s);
  REQUIRE(conns.size() == 4);
  for (auto& conn : conns) CHECK(conn == conns[0]);
  CHECK(remarks == std::vector<std::string>(4, "pong"));
  auto oneway = c.client->invokeOnewaySync(f.addr(), RemotingCommand::request(kPing));
  CHECK(oneway.ok());
}

TEST_CASE("a client whose peer stops reading keeps its connection: the write stall close is server-side only") {
  // A peer that accepts, then reads nothing for 3 s with a small receive buffer: the client's
  // 8 MiB frame stalls in its write queue far longer than the writeStallTimeout it was given.
  asio::io_context ctx;
  asio::ip::tcp::acceptor acceptor(ctx);
  acceptor.open(asio::ip::tcp::v4());
  acceptor.set_option(asio::socket_base::receive_buffer_size(16 * 1024));  // inherited by the accepted socket
  acceptor.bind({asio::ip::make_address("127.0.0.1"), 0});
  acceptor.listen();
  std::string addr = "127.0.0.1:" + std::to_string(acceptor.local_endpoint().port());

  ClientOptions o;
  o.connection.writeStallTimeout = 1s;
  ClientSide c(o);
  auto big = RemotingCommand::request(kPing);
  big.body.assign(8 << 20, 'w');
  REQUIRE(c.client->invokeOnewaySync(addr, big).ok());
  asio::ip::tcp::socket peer(ctx);
  acceptor.accept(peer);
  timeval tv{5, 0};
  ::setsockopt(peer.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::this_thread::sleep_for(3s);

  auto small = RemotingCommand::request(kPing);
  small.body = "after the stall";
  REQUIRE(c.client->invokeOnewaySync(addr, small).ok());  // the cached connection, if still open
  auto readFrame = [&]() -> std::optional<RemotingCommand> {
    char len[4];
    asio::error_code ec;
    asio::read(peer, asio::buffer(len), ec);
    if (ec) return std::nullopt;
    std::string frame(loadBE32(len), '\0');
    asio::read(peer, asio::buffer(frame), ec);
    if (ec) return std::nullopt;
    auto cmd = decodeFrame(frame);
    if (!cmd) return std::nullopt;
    return std::move(cmd.value());
  };
  auto first = readFrame();  // the whole 8 MiB: the client did not cut it off
  REQUIRE(first);
  CHECK(first->body.size() == size_t(8 << 20));
  auto second = readFrame();  // and the next request came over the same socket
  REQUIRE(second);
  CHECK(second->body == "after the stall");
}

TEST_CASE("a client with more than its write bound of requests queued keeps reading the answers (no deadlock)") {
  // 48 concurrent 1 MiB requests echoed back: the client queues 48 MiB, over its 8 MiB bound. A
  // client that stopped reading its answers on its own output would fill the server's output
  // past the server's bound, the server would stop reading the client, and neither would move.
  ServerFixture f;
  registerPing(*f.dispatcher);
  REQUIRE(f.start());
  // Declared before the client: the client (and its io thread, which completes the requests'
  // waits on `mine`'s timers) is torn down first, whatever is still in flight.
  asio::io_context mine;
  ClientSide c;
  constexpr int kRequests = 48;
  const std::string body(1 << 20, 'e');
  int echoed = 0;
  std::vector<std::string> errors;
  auto caller = [&]() -> asio::awaitable<void> {
    auto req = RemotingCommand::request(kPing);
    req.body = body;
    auto r = co_await c.client->invoke(f.addr(), std::move(req), 20s);
    if (r && r->body == body) ++echoed;
    else errors.push_back(r ? "wrong body" : r.error().message);
  };
  for (int i = 0; i < kRequests; ++i) asio::co_spawn(mine, caller(), asio::detached);
  mine.run_for(40s);
  INFO((errors.empty() ? std::string() : errors.front()));
  CHECK(echoed == kRequests);
}
