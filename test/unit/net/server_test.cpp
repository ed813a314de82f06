// RemotingServer + TcpConnection over real loopback sockets.
#include <doctest/doctest.h>

#include <asio/steady_timer.hpp>
#include <algorithm>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "common/response_code.h"
#include "net/async_result.h"
#include "net/remoting_client.h"
#include "unit/net/net_test_util.h"

using namespace rmq;
using namespace rmq::net;
using namespace std::chrono_literals;
using test::RawSocket;
using test::ServerFixture;

namespace {
using Gate = AsyncResult<bool>;
constexpr int kEcho = 100, kSlow = 101, kFast = 102, kPing = 103, kThrow = 104, kCount = 105;

void registerBasics(Dispatcher& d, std::atomic<int>* counter = nullptr) {
  d.registerProcessor(kEcho, [](ConnectionPtr, RemotingCommand req) -> asio::awaitable<std::optional<RemotingCommand>> {
    auto resp = RemotingCommand::response(ResponseCode::SUCCESS);
    resp.extFields.set("echo", std::string(req.extFields.get("in")));
    resp.body = "B:" + req.body;
    co_return resp;
  });
  d.registerProcessor(kPing, [](ConnectionPtr, RemotingCommand) -> asio::awaitable<std::optional<RemotingCommand>> {
    co_return RemotingCommand::response(ResponseCode::SUCCESS, std::string("pong"));
  });
  d.registerProcessor(kThrow, [](ConnectionPtr, RemotingCommand) -> asio::awaitable<std::optional<RemotingCommand>> {
    throw std::runtime_error("boom in handler");
    co_return std::nullopt;
  });
  d.registerProcessor(kCount, [counter](ConnectionPtr, RemotingCommand) -> asio::awaitable<std::optional<RemotingCommand>> {
    if (counter) ++*counter;
    co_return RemotingCommand::response(ResponseCode::SUCCESS, std::string("counted"));
  });
}
// kSlow answers once `gate` opens (code 0), or after 10 s (code 1).
void registerSlow(Dispatcher& d, const std::shared_ptr<Gate>& gate) {
  d.registerProcessor(kSlow, [gate](ConnectionPtr, RemotingCommand) -> asio::awaitable<std::optional<RemotingCommand>> {
    bool opened = co_await gate->wait(10s);
    co_return RemotingCommand::response(opened ? 0 : 1, std::string("slow"));
  });
}
// A ServerFixture (not started) with the basic processors; kCount counts into `counted`.
struct BasicServer : ServerFixture {
  explicit BasicServer(ConnectionOptions connOptions = {}) : ServerFixture(connOptions) {
    registerBasics(*dispatcher, &counted);
  }
  std::atomic<int> counted{0};
};

RemotingCommand requestOf(int code, int opaque, bool oneway = false) {
  auto cmd = RemotingCommand::request(code);
  cmd.opaque = opaque;
  if (oneway) cmd.flag = kFlagOneway;
  return cmd;
}
}  // namespace

TEST_CASE("request/response over loopback keeps opaque and serialize type") {
  BasicServer f;
  REQUIRE(f.start());
  for (auto type : {SerializeType::Json, SerializeType::RocketMQ}) {
    RawSocket s(f.server->port());
    RemotingCommand req = RemotingCommand::request(kEcho);
    req.opaque = 4242;
    req.serializeType = type;
    req.extFields.set("in", "hello");
    req.body = "payload";
    s.send(req);
    auto resp = s.readFrame();
    REQUIRE(resp);
    CHECK(resp->isResponse());
    CHECK(resp->opaque == 4242);
    CHECK(resp->serializeType == type);
    CHECK(resp->code == ResponseCode::SUCCESS);
    CHECK(resp->extFields.get("echo") == "hello");
    CHECK(resp->body == "B:payload");
  }
}

TEST_CASE("oneway request is processed but gets no response") {
  BasicServer f;
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  s.send(requestOf(kCount, 1, true));
  s.send(requestOf(kPing, 2));
  auto first = s.readFrame();
  REQUIRE(first);
  CHECK(first->opaque == 2);  // the oneway's answer, had there been one, would have come first
  CHECK(first->remark == "pong");
  CHECK(f.counted.load() == 1);
}

TEST_CASE("unknown code answers 3; a throwing handler answers 1 and the connection stays open") {
  BasicServer f;
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  s.send(requestOf(9999, 7));
  auto r1 = s.readFrame();
  REQUIRE(r1);
  CHECK(r1->code == ResponseCode::REQUEST_CODE_NOT_SUPPORTED);
  CHECK(r1->remark == " request type 9999 not supported");
  CHECK(r1->opaque == 7);

  s.send(requestOf(kThrow, 8));
  auto r2 = s.readFrame();
  REQUIRE(r2);
  CHECK(r2->code == ResponseCode::SYSTEM_ERROR);
  CHECK(r2->remark == "boom in handler");

  s.send(requestOf(kPing, 9));
  auto r3 = s.readFrame();
  REQUIRE(r3);
  CHECK(r3->opaque == 9);
}

TEST_CASE("a suspended handler does not hold back the next request on the same connection") {
  ServerFixture f;
  auto gate = std::make_shared<Gate>();
  registerSlow(*f.dispatcher, gate);
  f.dispatcher->registerProcessor(kFast, [](ConnectionPtr, RemotingCommand) -> asio::awaitable<std::optional<RemotingCommand>> {
    co_return RemotingCommand::response(0, std::string("fast"));
  });
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  auto slow = requestOf(kSlow, 1);
  auto fast = requestOf(kFast, 2);
  s.write(encodeFrame(slow) + encodeFrame(fast));  // one segment: both frames arrive together
  auto first = s.readFrame();
  REQUIRE(first);
  CHECK(first->opaque == 2);
  CHECK(first->remark == "fast");
  gate->set(true);
  auto second = s.readFrame();
  REQUIRE(second);
  CHECK(second->opaque == 1);
  CHECK(second->code == 0);
}

TEST_CASE("garbage and oversized frames close only that connection") {
  std::atomic<int> closed{0};
  BasicServer f;
  f.server->onConnectionClosed([&](const ConnectionPtr&) { ++closed; });
  REQUIRE(f.start());
  RawSocket good(f.server->port());

  RawSocket http(f.server->port());
  http.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");  // length word 0x47455420 > 16 MiB
  CHECK(http.closedByPeer());

  RawSocket oversized(f.server->port());
  std::string len;
  putBE32(len, 16 * 1024 * 1024);  // total + 4 > max frame
  oversized.write(len);
  CHECK(oversized.closedByPeer());

  RawSocket badType(f.server->port());
  std::string header = R"({"code":103,"opaque":1})";
  std::string frame;
  putBE32(frame, 4 + header.size());
  putBE32(frame, (5u << 24) | header.size());
  badType.write(frame + header);
  CHECK(badType.closedByPeer());

  RawSocket badJson(f.server->port());
  std::string junk = "{\"code\":";
  std::string frame2;
  putBE32(frame2, 4 + junk.size());
  putBE32(frame2, junk.size());
  badJson.write(frame2 + junk);
  CHECK(badJson.closedByPeer());

  auto ping = requestOf(kPing, 77);
  good.send(ping);
  auto r = good.readFrame();
  REQUIRE(r);
  CHECK(r->opaque == 77);
  for (int i = 0; i < 200 && closed.load() < 4; ++i) std::this_thread::sleep_for(10ms);
  CHECK(closed.load() == 4);
}

TEST_CASE("idle connections are closed and reported") {
  std::promise<std::string> closedPeer;
  BasicServer f(ConnectionOptions{1024 * 1024, std::chrono::seconds(1)});
  f.server->onConnectionClosed([&](const ConnectionPtr& c) { closedPeer.set_value(c->remoteAddress()); });
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  auto ping = RemotingCommand::request(kPing);
  s.send(ping);
  REQUIRE(s.readFrame());
  CHECK(s.closedByPeer());  // within ~1 s of the last write
  auto fut = closedPeer.get_future();
  REQUIRE(fut.wait_for(2s) == std::future_status::ready);
  CHECK(fut.get().rfind("127.0.0.1:", 0) == 0);
}

TEST_CASE("zero-copy body segments go out after the owned body") {
  ServerFixture f;
  f.dispatcher->registerProcessor(kEcho, [](ConnectionPtr, RemotingCommand) -> asio::awaitable<std::optional<RemotingCommand>> {
    auto store = std::make_shared<std::vector<std::string>>();
    for (int i = 0; i < 32; ++i) store->push_back("msg" + std::to_string(i) + ";");
    auto resp = RemotingCommand::response(0);
    resp.body = "head|";
    for (auto& m : *store) resp.bodySegments.push_back({m.data(), m.size()});
    resp.bodyOwner = store;
    co_return resp;
  });
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  s.send(RemotingCommand::request(kEcho));
  auto r = s.readFrame();
  REQUIRE(r);
  std::string expect = "head|";
  for (int i = 0; i < 32; ++i) expect += "msg" + std::to_string(i) + ";";
  CHECK(r->body == expect);
}

TEST_CASE("graceful stop lets an in-flight request finish, then refuses connections") {
  ServerFixture f;
  std::promise<void> started;
  f.dispatcher->registerProcessor(kSlow, [&started](ConnectionPtr c, RemotingCommand) -> asio::awaitable<std::optional<RemotingCommand>> {
    started.set_value();
    asio::steady_timer t(co_await asio::this_coro::executor, 300ms);
    co_await t.async_wait(asio::use_awaitable);
    co_return RemotingCommand::response(0, std::string("finished"));
  });
  REQUIRE(f.start());
  uint16_t port = f.server->port();
  RawSocket s(port);
  s.send(requestOf(kSlow, 5));
  started.get_future().wait();
  f.server->stop(3s);
  auto r = s.readFrame();
  REQUIRE(r);
  CHECK(r->remark == "finished");
  CHECK(s.closedByPeer());
  CHECK_THROWS(RawSocket(port));
}

TEST_CASE("multi-megabyte frames: read buffer grows, partial gathered writes complete") {
  ServerFixture f;
  f.dispatcher->registerProcessor(kEcho, [](ConnectionPtr, RemotingCommand req) -> asio::awaitable<std::optional<RemotingCommand>> {
    auto owner = std::make_shared<std::string>(std::move(req.body));
    auto resp = RemotingCommand::response(0);
    for (size_t off = 0; off < owner->size(); off += 100'000)  // many segments, several sendmsg calls
      resp.bodySegments.push_back({owner->data() + off, std::min<size_t>(100'000, owner->size() - off)});
    resp.bodyOwner = owner;
    co_return resp;
  });
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  auto req = RemotingCommand::request(kEcho);
  req.body.resize(3'000'000);
  for (size_t i = 0; i < req.body.size(); ++i) req.body[i] = static_cast<char>('a' + i % 26);
  s.send(req);
  s.send(RemotingCommand::request(kEcho));  // a small frame right behind the big one
  auto r = s.readFrame();
  REQUIRE(r);
  CHECK(r->body == req.body);
  auto r2 = s.readFrame();
  REQUIRE(r2);
  CHECK(r2->body.empty());
}

TEST_CASE("a dispatcher guard answers instead of the processor; refused oneway requests get nothing") {
  BasicServer f;
  f.dispatcher->setGuard([](const Connection& conn, const RemotingCommand& cmd) -> std::optional<RemotingCommand> {
    if (cmd.extFields.get("key") == "open") return std::nullopt;
    return RemotingCommand::response(ResponseCode::SYSTEM_ERROR, "refused " + conn.remoteAddress().substr(0, 9));
  });
  REQUIRE(f.start());
  RawSocket s(f.server->port());
  s.send(requestOf(kCount, 1, true));
  s.send(requestOf(kCount, 2));
  auto first = s.readFrame();
  REQUIRE(first);
  CHECK(first->opaque == 2);  // nothing for the oneway one
  CHECK(first->code == ResponseCode::SYSTEM_ERROR);
  CHECK(first->remark == "refused 127.0.0.1");
  auto allowed = requestOf(kCount, 3);
  allowed.extFields.set("key", "open");
  s.send(allowed);
  auto second = s.readFrame();
  REQUIRE(second);
  CHECK(second->opaque == 3);
  CHECK(second->code == ResponseCode::SUCCESS);
  CHECK(f.counted == 1);  // only the allowed request reached the processor
}

TEST_CASE("the dispatcher's observer times each answered request across its wait; not a throw, not an unknown code") {
  BasicServer f;
  auto gate = std::make_shared<Gate>();
  registerSlow(*f.dispatcher, gate);
  std::mutex mu;
  std::vector<std::pair<int, std::chrono::steady_clock::duration>> seen;
  f.dispatcher->setObserver([&](int code, std::chrono::steady_clock::duration took) {
    std::lock_guard lk(mu);
    seen.emplace_back(code, took);
  });
  REQUIRE(f.start());  // the connections take the observer at start
  RawSocket s(f.server->port());
  s.send(requestOf(kSlow, 1));
  s.send(requestOf(9999, 2));   // unknown: answered 3, not observed
  s.send(requestOf(kThrow, 3));  // threw: SYSTEM_ERROR, not observed
  s.send(requestOf(kCount, 4, true));  // oneway: observed, no answer
  for (int opaque : {2, 3}) {
    auto r = s.readFrame();
    REQUIRE(r);
    CHECK(r->opaque == opaque);
  }
  std::this_thread::sleep_for(50ms);  // the slow request's handler, called before 2 and 3, waits all this while
  gate->set(true);
  auto slow = s.readFrame();
  REQUIRE(slow);
  CHECK(slow->opaque == 1);
  s.send(requestOf(kPing, 5));
  REQUIRE(s.readFrame());
  std::lock_guard lk(mu);
  REQUIRE(seen.size() == 3);  // kCount, kSlow, kPing (each observed before its answer; kCount before kPing)
  auto took = [&](int code) {
    auto it = std::find_if(seen.begin(), seen.end(), [code](const auto& e) { return e.first == code; });
    return it == seen.end() ? std::chrono::steady_clock::duration(-1) : it->second;
  };
  CHECK(took(kCount) >= std::chrono::steady_clock::duration(0));
  CHECK(took(kSlow) >= 50ms);  // from its handler's call to its answer, not just the call
  CHECK(took(kPing) >= std::chrono::steady_clock::duration(0));
}
