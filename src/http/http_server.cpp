#include "http/http_server.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <future>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "common/log.h"
#include "http/http_connection.h"
#include "net/tcp_listener.h"

namespace rmq::http {

// Shared by the accept loop and every connection's end callback (reference-counted: they may
// outlive a stop() that timed out).
struct HttpServerState {
  std::mutex mu;
  std::unordered_map<uint64_t, std::function<void()>> closers;  // live connections
  uint64_t nextId = 1;
};

namespace {

using asio::experimental::as_tuple;

asio::awaitable<void> acceptLoop(std::shared_ptr<asio::ip::tcp::acceptor> acc, net::IoPool& pool,
                                 HttpServerOptions options, std::shared_ptr<const HttpRouter> router,
                                 std::shared_ptr<HttpServerState> state) {
  for (;;) {
    auto& ctx = pool.next();
    auto [ec, socket] = co_await acc->async_accept(ctx, as_tuple(asio::use_awaitable));
    if (ec == asio::error::operation_aborted || !acc->is_open()) co_return;
    if (ec) {  // e.g. EMFILE: keep serving, but do not spin
      co_await net::pauseAfterAcceptError(acc, ec, "http");
      continue;
    }
    uint64_t id = 0;
    {
      std::lock_guard lk(state->mu);
      if (state->closers.size() < options.maxConnections) {
        id = state->nextId++;
        state->closers[id] = nullptr;  // counted before the connection can end
      }
    }
    if (id == 0) {
      asio::error_code ignored;
      socket.close(ignored);
      continue;
    }
    auto onEnd = [state, id] {
      std::lock_guard g(state->mu);
      state->closers.erase(id);
    };
    auto closer = serveConnection(std::move(socket), router, options, std::move(onEnd));
    std::lock_guard lk(state->mu);
    if (auto it = state->closers.find(id); it != state->closers.end()) it->second = std::move(closer);
  }
}

}  // namespace

struct HttpServer::Impl {
  net::IoPool& pool;
  HttpServerOptions options;
  std::shared_ptr<const HttpRouter> router;
  std::shared_ptr<HttpServerState> state = std::make_shared<HttpServerState>();
  std::shared_ptr<asio::ip::tcp::acceptor> acceptor;
  uint16_t port = 0;
  bool running = false;

  size_t count() {
    std::lock_guard lk(state->mu);
    return state->closers.size();
  }
};

HttpServer::HttpServer(net::IoPool& pool, HttpServerOptions options, std::shared_ptr<const HttpRouter> router)
    : impl_(std::make_unique<Impl>(Impl{pool, std::move(options), std::move(router)})) {}

HttpServer::~HttpServer() { stop(); }

Result<void> HttpServer::start() {
  auto& o = impl_->options;
  auto listening = net::listenTcp(impl_->pool.at(0), o.host, o.port, "http");
  if (!listening) return listening.error();
  auto acc = std::move(*listening);
  impl_->port = acc->local_endpoint().port();
  impl_->acceptor = acc;
  impl_->running = true;
  asio::co_spawn(impl_->pool.at(0), acceptLoop(acc, impl_->pool, o, impl_->router, impl_->state), asio::detached);
  log::info("http: listening on {}:{}", o.host, impl_->port);
  return {};
}

uint16_t HttpServer::port() const { return impl_->port; }
size_t HttpServer::connectionCount() const { return impl_->count(); }

void HttpServer::stop() {
  if (!impl_->running) return;
  impl_->running = false;
  net::closeAcceptor(impl_->pool.at(0), impl_->acceptor, impl_->pool.running());
  if (!impl_->pool.running()) return;  // no thread can run anything: the port is released
  std::vector<std::function<void()>> closers;
  {
    std::lock_guard lk(impl_->state->mu);
    for (auto& [id, close] : impl_->state->closers)
      if (close) closers.push_back(close);
  }
  for (auto& close : closers) close();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (impl_->count() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  log::info("http: server on port {} stopped", impl_->port);
}

}  // namespace rmq::http
