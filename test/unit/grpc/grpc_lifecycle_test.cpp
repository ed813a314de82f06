// How calls end and what they may carry: bidirectional streams written from another thread,
// half-close, client cancel, deadlines, connection loss, the inbound size limit, compressed
// requests, many concurrent streams on one connection. Real loopback sockets.
#include "unit/grpc/grpc_test_util.h"

using namespace rmq;
using namespace rmq::grpc;
using namespace rmq::grpc::test;

namespace {

struct Outcome {
  std::vector<std::string> messages;
  Status status;
};

}  // namespace

TEST_CASE("grpc bidi: interleaved reads and writes, the server writing from another thread") {
  GrpcFixture f;
  f.start();
  auto ch = f.connect();
  auto out = f.run<Outcome>([ch]() -> asio::awaitable<Outcome> {
    auto call = ch->start("/test.Echo/Bidi", {});
    Outcome o;
    for (std::string m : {"a", "bb", "ccc"}) {
      call->write(m);
      auto answer = co_await call->read();  // each answer before the next request
      o.messages.push_back(answer.value_or("<none>"));
    }
    call->writesDone();
    auto after = co_await call->read();
    if (after) o.messages.push_back("unexpected " + *after);
    o.status = co_await call->finish();
    co_return o;
  });
  CHECK(out.status.code == StatusCode::OK);
  CHECK(out.messages == std::vector<std::string>{"echo:a", "echo:bb", "echo:ccc"});
}

TEST_CASE("grpc half-close: the server's read() gives every buffered message, then nullopt") {
  GrpcFixture f;
  f.start();
  auto ch = f.connect();
  auto out = f.run<Outcome>([ch]() -> asio::awaitable<Outcome> {
    auto call = ch->start("/test.Echo/Count", {});
    call->write("12345");
    call->write("");
    call->write(std::string(100000, 'z'));
    call->writesDone();
    CHECK_FALSE(call->write("after half-close"));
    Outcome o;
    while (auto m = co_await call->read()) o.messages.push_back(*m);
    o.status = co_await call->finish();
    co_return o;
  });
  CHECK(out.status.code == StatusCode::OK);
  CHECK(out.messages == std::vector<std::string>{"3/100005"});
}

TEST_CASE("grpc client cancel: the server's cancel handler runs and its read() returns nullopt") {
  GrpcFixture f;
  f.start();
  auto ch = f.connect();
  auto out = f.run<Outcome>([ch]() -> asio::awaitable<Outcome> {
    auto call = ch->start("/test.Echo/Park", {});
    Outcome o;
    auto first = co_await call->read();  // the handler is running
    o.messages.push_back(first.value_or("<none>"));
    call->cancel();
    o.status = co_await call->finish();
    co_return o;
  });
  CHECK(out.messages == std::vector<std::string>{"parked"});
  CHECK(out.status.code == StatusCode::CANCELLED);
  CHECK(eventually([&] { return f.seen->cancels.load() == 1 && f.seen->readEnds.load() == 1; }));
  CHECK(f.unary(ch, "/test.Echo/Unary", "next").response == "next");  // the connection goes on
}

TEST_CASE("grpc deadline: DEADLINE_EXCEEDED for the client, the server's handler is cancelled") {
  GrpcFixture f;
  f.start();
  auto ch = f.connect();
  auto started = std::chrono::steady_clock::now();
  auto out = f.run<Outcome>([ch]() -> asio::awaitable<Outcome> {
    auto call = ch->start("/test.Echo/Park", {}, 300ms);
    Outcome o;
    while (auto m = co_await call->read()) o.messages.push_back(*m);
    o.status = co_await call->finish();
    co_return o;
  });
  auto took = std::chrono::steady_clock::now() - started;
  CHECK(out.status.code == StatusCode::DEADLINE_EXCEEDED);
  CHECK(took >= 290ms);
  CHECK(eventually([&] { return f.seen->cancels.load() == 1 && f.seen->readEnds.load() == 1; }));
}

TEST_CASE("grpc connection loss: every open call of the connection is cancelled on the server") {
  GrpcFixture f;
  f.start();
  auto ch = f.connect();
  f.run<int>([ch]() -> asio::awaitable<int> {
    auto a = ch->start("/test.Echo/Park", {}), b = ch->start("/test.Echo/Park", {});
    auto x = co_await a->read();
    auto y = co_await b->read();
    co_return x && y ? 1 : 0;
  });
  CHECK(f.seen->calls.load() == 2);
  ch->close();
  CHECK(eventually([&] { return f.seen->cancels.load() == 2 && f.seen->readEnds.load() == 2; }));
  CHECK(eventually([&] { return f.server->connectionCount() == 0; }));
}

TEST_CASE("grpc oversized message: RESOURCE_EXHAUSTED, the stream reset, the connection kept") {
  auto o = loopbackOptions();
  o.maxInboundMessageSize = 1024;
  GrpcFixture f(o);
  f.start();
  auto ch = f.connect();
  auto r = f.unary(ch, "/test.Echo/Unary", std::string(1025, 'x'));
  CHECK(r.status.code == StatusCode::RESOURCE_EXHAUSTED);
  CHECK(r.status.message.find("1025") != std::string::npos);
  auto ok = f.unary(ch, "/test.Echo/Unary", std::string(1024, 'y'));  // at the limit: fine
  CHECK(ok.status.code == StatusCode::OK);
  CHECK(ok.response.size() == 1024);
  CHECK(ch->isOpen());
  CHECK(f.server->connectionCount() == 1);
}

TEST_CASE("grpc gzip-compressed request messages are inflated") {
  GrpcFixture f;
  f.start();
  ChannelOptions o;
  o.gzipRequests = true;
  auto ch = f.connect(o);
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "line " + std::to_string(i) + "\n";
  auto r = f.unary(ch, "/test.Echo/Unary", text);
  CHECK(r.status.code == StatusCode::OK);
  CHECK(r.response == text);
}

TEST_CASE("grpc 500 concurrent streams on one connection") {
  GrpcFixture f;
  f.start();
  auto ch = f.connect();
  auto ok = f.run<int>([ch]() -> asio::awaitable<int> {
    std::vector<std::shared_ptr<ClientCall>> calls;
    for (int i = 0; i < 500; ++i) {
      calls.push_back(ch->start("/test.Echo/Unary", {}));
      calls.back()->write("req" + std::to_string(i));
      calls.back()->writesDone();
    }
    int good = 0;
    for (int i = 0; i < 500; ++i) {
      auto m = co_await calls[i]->read();
      auto s = co_await calls[i]->finish();
      if (s.isOk() && m == "req" + std::to_string(i)) ++good;
    }
    co_return good;
  });
  CHECK(ok == 500);
  CHECK(f.server->connectionCount() == 1);
}
