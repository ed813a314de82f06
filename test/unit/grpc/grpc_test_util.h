#pragma once
// Loopback fixtures of the gRPC tests: a GrpcServer on 127.0.0.1:<free port> with test methods,
// a client io thread for GrpcChannels, and run() to drive a client coroutine from the test thread.
#include <doctest/doctest.h>

#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/co_spawn.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "grpc/grpc_channel.h"
#include "grpc/grpc_server.h"
#include "grpc/grpc_tls.h"

namespace rmq::grpc::test {

using namespace std::chrono_literals;

// What the test methods saw (any thread).
struct Seen {
  std::atomic<int> cancels{0};      // cancel handlers run
  std::atomic<int> readEnds{0};     // read() returned nullopt after a cancel
  std::atomic<int> calls{0};
};

inline GrpcServerOptions loopbackOptions() {
  GrpcServerOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  return o;
}

struct GrpcFixture {
  explicit GrpcFixture(GrpcServerOptions o = loopbackOptions()) {
    pool.start();
    clients.start();
    helper.start();
    server = std::make_unique<GrpcServer>(pool, std::move(o));
    registerMethods();
  }
  ~GrpcFixture() {
    server->stop(0ms);
    server.reset();
    clients.stop();
    helper.stop();
    pool.stop();
  }
  void start() {
    auto r = server->start();
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  }
  uint16_t port() const { return server->port(); }

  // Runs a client coroutine on the client thread and waits for its result (20 s at most).
  template <class T>
  T run(std::function<asio::awaitable<T>()> f) {
    auto promise = std::make_shared<std::promise<T>>();
    auto future = promise->get_future();
    auto body = [f, promise]() -> asio::awaitable<void> {
      auto work = f();
      T value = co_await std::move(work);
      promise->set_value(std::move(value));
    };
    asio::co_spawn(clients.at(0), std::move(body), [promise](std::exception_ptr e) {
      if (e) promise->set_exception(e);
    });
    REQUIRE(future.wait_for(20s) == std::future_status::ready);
    return future.get();
  }

  std::shared_ptr<GrpcChannel> connect(ChannelOptions o = {}) {
    uint16_t p = port();
    auto ch = run<Result<std::shared_ptr<GrpcChannel>>>(
        [p, o]() { return GrpcChannel::connect("127.0.0.1", p, o); });
    REQUIRE_MESSAGE(ch.ok(), (ch.ok() ? "" : ch.error().message));
    return *ch;
  }

  UnaryResult unary(const std::shared_ptr<GrpcChannel>& ch, std::string path, std::string request,
                    std::chrono::milliseconds timeout = 0ms) {
    return run<UnaryResult>([ch, path, request, timeout]() { return ch->unary(path, {}, request, timeout); });
  }

  void registerMethods();

  net::IoPool pool{2};
  net::IoPool clients{1};
  net::IoPool helper{1};  // "another thread" that writes to server calls
  std::unique_ptr<GrpcServer> server;
  std::shared_ptr<Seen> seen = std::make_shared<Seen>();
};

// Polls `cond` every 5 ms for up to `limit`.
template <class F>
bool eventually(F cond, std::chrono::milliseconds limit = 5000ms) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(5ms);
  }
  return true;
}

}  // namespace rmq::grpc::test
