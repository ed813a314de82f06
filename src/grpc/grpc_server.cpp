#include "grpc/grpc_server.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>
#include <thread>

#include "common/log.h"
#include "common/response_code.h"
#include "grpc/server_connection.h"
#include "net/tcp_listener.h"

namespace rmq::grpc {
namespace {

using Shared = std::shared_ptr<ServerShared>;

void startConnection(asio::ip::tcp::socket socket, std::unique_ptr<net::TlsSession> tls, const Shared& shared) {
  auto conn = std::make_shared<ServerConnection>(std::move(socket), std::move(tls), shared);
  {
    std::lock_guard lk(shared->mu);
    shared->connections.emplace(conn->id(), conn);
  }
  if (!conn->start()) conn->close("no HTTP/2 session");
}

// A TLS port's new connection, on its own io thread: h2c ('P' of the preface) or TLS (0x16).
asio::awaitable<void> admit(asio::ip::tcp::socket socket, Shared shared) {
  const auto& o = shared->options;
  auto admitted = co_await net::admitConnection(socket, o.tls, o.connection.idleTimeout, o.connection.partialFrameTimeout);
  if (!admitted) {
    asio::error_code ec;
    auto peer = socket.remote_endpoint(ec);
    if (admitted.error().code == ResponseCode::CLIENT_CONNECTION_CLOSED)
      log::debug("grpc: connection {}:{} closed before sending anything", peer.address().to_string(), peer.port());
    else
      log::warn("grpc: connection {}:{} closed: {}", peer.address().to_string(), peer.port(), admitted.error().message);
    socket.close(ec);
    co_return;
  }
  if (shared->stopped.load()) co_return;  // stopped meanwhile: nobody would close it
  startConnection(std::move(socket), std::move(*admitted), shared);
}

asio::awaitable<void> acceptLoop(net::AcceptorPtr acc, net::IoPool& pool, Shared shared) {
  using asio::experimental::as_tuple;
  for (;;) {
    auto& ctx = pool.next();
    auto [ec, socket] = co_await acc->async_accept(ctx, as_tuple(asio::use_awaitable));
    if (ec == asio::error::operation_aborted || !acc->is_open()) co_return;
    if (ec) {
      co_await net::pauseAfterAcceptError(acc, ec, "grpc");
      continue;
    }
    if (shared->options.tls.mode == net::TlsMode::Disabled) {
      startConnection(std::move(socket), nullptr, shared);
      continue;
    }
    auto ex = socket.get_executor();
    asio::co_spawn(ex, admit(std::move(socket), shared), asio::detached);
  }
}

}  // namespace

struct GrpcServer::Impl {
  net::IoPool& pool;
  Shared shared = std::make_shared<ServerShared>();
  net::AcceptorPtr acceptor;
  uint16_t port = 0;
  bool running = false;

  explicit Impl(net::IoPool& p) : pool(p) {}

  std::vector<std::shared_ptr<ServerConnection>> snapshot() {
    std::lock_guard lk(shared->mu);
    std::vector<std::shared_ptr<ServerConnection>> out;
    for (auto& [id, c] : shared->connections) out.push_back(c);
    return out;
  }
  size_t count() {
    std::lock_guard lk(shared->mu);
    return shared->connections.size();
  }
};

GrpcServer::GrpcServer(net::IoPool& pool, GrpcServerOptions options) : impl_(std::make_unique<Impl>(pool)) {
  impl_->shared->options = std::move(options);
}

GrpcServer::~GrpcServer() { stop(std::chrono::milliseconds(0)); }

void GrpcServer::handle(std::string path, CallHandler handler) {
  impl_->shared->handlers[std::move(path)] = std::move(handler);
}

void GrpcServer::setObserver(CallObserver observer) { impl_->shared->observer = std::move(observer); }

Result<void> GrpcServer::start() {
  const auto& o = impl_->shared->options;
  if (o.tls.mode != net::TlsMode::Disabled && !o.tls.context)
    return makeError(ResponseCode::SYSTEM_ERROR, "grpc: TLS is not disabled but no TLS context was made");
  auto listening = net::listenTcp(impl_->pool.at(0), o.host, o.port, "grpc");
  if (!listening) return listening.error();
  impl_->acceptor = std::move(*listening);
  impl_->port = impl_->acceptor->local_endpoint().port();
  impl_->running = true;
  asio::co_spawn(impl_->pool.at(0), acceptLoop(impl_->acceptor, impl_->pool, impl_->shared), asio::detached);
  log::info("grpc: listening on {}:{} (TLS {}{})", o.host, impl_->port, net::tlsModeName(o.tls.mode),
            o.tls.context ? ", " + o.tls.context->description() : "");
  return {};
}

uint16_t GrpcServer::port() const { return impl_->port; }
size_t GrpcServer::connectionCount() const { return impl_->count(); }

void GrpcServer::stop(std::chrono::milliseconds drain) {
  if (!impl_->running) return;
  impl_->running = false;
  impl_->shared->stopped.store(true);
  net::closeAcceptor(impl_->pool.at(0), impl_->acceptor, impl_->pool.running());
  if (!impl_->pool.running()) return;
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + drain;
  for (auto& c : impl_->snapshot()) c->goAway();
  // A connection closes by itself once GOAWAY is out and its last stream ended.
  while (impl_->count() > 0 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  for (auto& c : impl_->snapshot()) c->close("server stopped");
  auto closeDeadline = Clock::now() + std::chrono::seconds(2);
  while (impl_->count() > 0 && Clock::now() < closeDeadline) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  log::info("grpc: server on port {} stopped", impl_->port);
}

}  // namespace rmq::grpc
