// Calls of our client against our server over real loopback sockets: unary, server streaming,
// bidirectional, half-close, unknown method.
#include "unit/grpc/grpc_test_util.h"

using namespace rmq;
using namespace rmq::grpc;
using namespace rmq::grpc::test;

namespace {

struct StreamOutcome {
  std::vector<std::string> messages;
  Status status;
};

}  // namespace

TEST_CASE("grpc unary call echoes the request with request metadata, over one connection") {
  GrpcFixture f;
  f.start();
  auto ch = f.connect();
  auto r = f.run<UnaryResult>([ch]() {
    return ch->unary("/test.Echo/Unary", {{"x-prefix", "re:"}}, std::string("hello"), 2000ms);
  });
  CHECK(r.status.code == StatusCode::OK);
  CHECK(r.response == "re:hello");
  std::string big(4 * 1024 * 1024 + 3, 'x');  // a 4 MiB message over the raised windows
  auto r2 = f.unary(ch, "/test.Echo/Unary", big);
  CHECK(r2.status.code == StatusCode::OK);
  CHECK(r2.response == big);
  CHECK(f.server->connectionCount() == 1);
}

TEST_CASE("grpc server streaming: N messages then the status") {
  GrpcFixture f;
  f.start();
  auto ch = f.connect();
  auto out = f.run<StreamOutcome>([ch]() -> asio::awaitable<StreamOutcome> {
    auto call = ch->start("/test.Echo/ServerStream", {});
    call->write("50");
    call->writesDone();
    StreamOutcome o;
    while (auto m = co_await call->read()) o.messages.push_back(*m);
    o.status = co_await call->finish();
    co_return o;
  });
  CHECK(out.status.code == StatusCode::OK);
  REQUIRE(out.messages.size() == 50);
  CHECK(out.messages.front() == "m0");
  CHECK(out.messages.back() == "m49");
}

TEST_CASE("grpc unknown method: UNIMPLEMENTED with the path, as Trailers-Only") {
  GrpcFixture f;
  f.start();
  auto ch = f.connect();
  auto r = f.unary(ch, "/test.Echo/Nope", "x");
  CHECK(r.status.code == StatusCode::UNIMPLEMENTED);
  CHECK(r.status.message == "Method not found: /test.Echo/Nope");
  auto ok = f.unary(ch, "/test.Echo/Unary", "still served");  // same connection
  CHECK(ok.response == "still served");
}
