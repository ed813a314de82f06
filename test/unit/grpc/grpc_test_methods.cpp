// The methods the gRPC tests call (registered by every GrpcFixture).
#include "unit/grpc/grpc_test_util.h"

namespace rmq::grpc::test {
namespace {

using asio::experimental::as_tuple;
using asio::use_awaitable;

asio::awaitable<void> echo(ServerCallPtr call) {
  auto request = co_await call->read();
  if (!request) {
    call->finish({StatusCode::INVALID_ARGUMENT, "no request"});
    co_return;
  }
  call->write(std::string(call->metadata("x-prefix")) + *request);
  call->finish(Status::ok());
}

// Request: a count N; answers N messages "m0".."m<N-1>".
asio::awaitable<void> serverStream(ServerCallPtr call) {
  auto request = co_await call->read();
  int n = request ? std::stoi(*request) : 0;
  for (int i = 0; i < n; ++i) call->write("m" + std::to_string(i));
  call->finish(Status::ok());
}

// Each message is answered "echo:<m>", written from another thread; status after the half-close.
asio::awaitable<void> bidi(ServerCallPtr call, net::IoPool* helper) {
  while (auto m = co_await call->read()) {
    std::promise<void> written;
    asio::post(helper->at(0), [call, text = "echo:" + *m, &written] {
      call->write(text);
      written.set_value();
    });
    written.get_future().wait();  // the handler's thread blocks briefly: a test, not the broker
  }
  call->finish(Status::ok());
}

// Reads every message until the half-close; answers "<count>/<total bytes>".
asio::awaitable<void> count(ServerCallPtr call) {
  size_t n = 0, bytes = 0;
  while (auto m = co_await call->read()) {
    ++n;
    bytes += m->size();
  }
  call->write(std::to_string(n) + "/" + std::to_string(bytes));
  call->finish(Status::ok());
}

// Parks until cancelled (client cancel, deadline, connection loss) and records what it saw.
asio::awaitable<void> park(ServerCallPtr call, std::shared_ptr<Seen> seen) {
  seen->calls++;
  call->setCancelHandler([seen] { seen->cancels++; });
  call->write("parked");
  while (co_await call->read()) {
  }
  if (call->done()) seen->readEnds++;
  // finish() after the end is ignored: the transport already ended the call.
  call->finish(Status::ok());
}

// Never reads; finishes after `ms` from the request (stop() drain tests).
asio::awaitable<void> slow(ServerCallPtr call) {
  auto request = co_await call->read();
  asio::steady_timer t(call->executor(), std::chrono::milliseconds(request ? std::stoi(*request) : 0));
  co_await t.async_wait(as_tuple(use_awaitable));
  call->write("slept");
  call->finish(Status::ok());
}

}  // namespace

void GrpcFixture::registerMethods() {
  server->handle("/test.Echo/Unary", echo);
  server->handle("/test.Echo/ServerStream", serverStream);
  auto* h = &helper;
  server->handle("/test.Echo/Bidi", [h](ServerCallPtr c) { return bidi(std::move(c), h); });
  server->handle("/test.Echo/Count", count);
  auto s = seen;
  server->handle("/test.Echo/Park", [s](ServerCallPtr c) { return park(std::move(c), s); });
  server->handle("/test.Echo/Slow", slow);
}

}  // namespace rmq::grpc::test
