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
#include "common/response_code.h"
#include "http/http_connection.h"

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
      log::warn("http: accept failed: {}", ec.message());
      asio::steady_timer t(acc->get_executor(), std::chrono::milliseconds(100));
      co_await t.async_wait(as_tuple(asio::use_awaitable));
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
  std::string where = o.host + ":" + std::to_string(o.port);
  asio::error_code ec;
  auto addr = asio::ip::make_address(o.host, ec);
  if (ec) return makeError(ResponseCode::SYSTEM_ERROR, "http: bad bind address " + where + ": " + ec.message());
  asio::ip::tcp::endpoint ep(addr, o.port);
  auto acc = std::make_shared<asio::ip::tcp::acceptor>(impl_->pool.at(0));
  if (acc->open(ep.protocol(), ec); !ec) acc->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acc->bind(ep, ec);
  if (!ec) acc->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return makeError(ResponseCode::SYSTEM_ERROR, "http: cannot listen on " + where + ": " + ec.message());
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
  if (!impl_->pool.running()) {  // no thread can run anything: just release the port
    asio::error_code ec;
    impl_->acceptor->close(ec);
    return;
  }
  auto closed = std::make_shared<std::promise<void>>();
  asio::post(impl_->pool.at(0), [acc = impl_->acceptor, closed] {
    asio::error_code ec;
    acc->close(ec);
    closed->set_value();
  });
  closed->get_future().wait_for(std::chrono::seconds(5));
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
