#include "net/remoting_server.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <future>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "common/log.h"
#include "common/response_code.h"
#include "net/tcp_connection.h"
#include "net/tcp_listener.h"

namespace rmq::net {

// State shared with the accept loop and every connection's callbacks (they may outlive a
// stop() that timed out, so it is reference-counted).
struct ServerState {
  std::mutex mu;
  std::unordered_map<uint64_t, std::shared_ptr<TcpConnection>> connections;
  std::function<void(const ConnectionPtr&)> onClosed;
  std::shared_ptr<std::atomic<int64_t>> inFlight = std::make_shared<std::atomic<int64_t>>(0);
  std::atomic<bool> stopped{false};  // stop() began: a connection still being admitted is dropped
  HeldAnswer heldAnswer;             // set before start(): copied into every connection's hooks
};

namespace {

ConnectionHooksPtr makeHooks(const std::shared_ptr<Dispatcher>& dispatcher, const std::shared_ptr<ServerState>& state) {
  auto hooks = std::make_shared<ConnectionHooks>();
  auto& h = *hooks;
  h.onRequest = [d = dispatcher](ConnectionPtr c, RemotingCommand cmd) { return d->dispatch(std::move(c), std::move(cmd)); };
  h.onClosed = [s = state](const ConnectionPtr& c) {
    {
      std::lock_guard lk(s->mu);
      s->connections.erase(c->id());
    }
    if (s->onClosed) s->onClosed(c);
  };
  h.inFlight = state->inFlight;
  if (dispatcher->observed())
    h.onAnswered = [d = dispatcher](int code, std::chrono::steady_clock::duration took) { d->observe(code, took); };
  h.answerHeld = state->heldAnswer;
  return hooks;
}

void startConnection(asio::ip::tcp::socket socket, const LiveConnectionOptionsPtr& options,
                     const ConnectionHooksPtr& hooks, const std::shared_ptr<ServerState>& state,
                     std::unique_ptr<TlsSession> tls) {
  auto conn = TcpConnection::make(std::move(socket), options, hooks, std::move(tls));
  {
    std::lock_guard lk(state->mu);
    state->connections.emplace(conn->id(), conn);
  }
  conn->start();
}

std::string endpointOf(const asio::ip::tcp::socket& socket, bool remote) {
  asio::error_code ec;
  auto ep = remote ? socket.remote_endpoint(ec) : socket.local_endpoint(ec);
  return ec ? "unknown" : ep.address().to_string() + ":" + std::to_string(ep.port());
}

// A TLS port's new connection, on its own io_context: plaintext or TLS by the first byte, then
// the connection proper. The first byte may take up to the idle timeout (a plaintext client may
// connect before its first request); the handshake, once begun, at most partialFrameTimeout.
asio::awaitable<void> admit(asio::ip::tcp::socket socket, ServerTls tls, LiveConnectionOptionsPtr options,
                            ConnectionHooksPtr hooks, std::shared_ptr<ServerState> state) {
  auto admitted = co_await admitConnection(socket, tls, options->idleTimeout(), options->partialFrameTimeout());
  if (!admitted) {
    if (admitted.error().code == ResponseCode::CLIENT_CONNECTION_CLOSED)
      log::debug("remoting: connection {} closed before sending anything", endpointOf(socket, true));
    else
      log::warn("remoting: connection {} (local {}) closed: {}", endpointOf(socket, true), endpointOf(socket, false),
                admitted.error().message);
    asio::error_code ec;
    socket.close(ec);
    co_return;
  }
  if (state->stopped.load()) co_return;  // the server stopped meanwhile: nobody would close this one
  startConnection(std::move(socket), options, hooks, state, std::move(*admitted));
}

// Runs on pool.at(0); holds everything it touches so a destroyed server cannot dangle it.
asio::awaitable<void> acceptLoop(std::shared_ptr<asio::ip::tcp::acceptor> acc, IoPool& pool,
                                 LiveConnectionOptionsPtr options, ConnectionHooksPtr hooks,
                                 std::shared_ptr<ServerState> state, ServerTls tls) {
  using asio::experimental::as_tuple;
  for (;;) {
    auto& ctx = pool.next();
    auto [ec, socket] = co_await acc->async_accept(ctx, as_tuple(asio::use_awaitable));
    if (ec == asio::error::operation_aborted || !acc->is_open()) co_return;
    if (ec) {  // e.g. EMFILE: keep serving, but do not spin
      co_await pauseAfterAcceptError(acc, ec, "remoting");
      continue;
    }
    if (tls.mode == TlsMode::Disabled) {
      startConnection(std::move(socket), options, hooks, state, nullptr);
      continue;
    }
    auto ex = socket.get_executor();
    asio::co_spawn(ex, admit(std::move(socket), tls, options, hooks, state), asio::detached);
  }
}

}  // namespace

struct RemotingServer::Impl {
  IoPool& pool;
  ServerOptions options;
  std::shared_ptr<LiveConnectionOptions> limits;  // shared by every connection
  std::shared_ptr<Dispatcher> dispatcher;
  std::shared_ptr<ServerState> state = std::make_shared<ServerState>();
  std::shared_ptr<asio::ip::tcp::acceptor> acceptor;
  uint16_t port = 0;
  bool running = false;

  Impl(IoPool& p, ServerOptions o, std::shared_ptr<Dispatcher> d)
      : pool(p), options(std::move(o)), limits(std::make_shared<LiveConnectionOptions>(options.connection)),
        dispatcher(std::move(d)) {}

  std::vector<std::shared_ptr<TcpConnection>> snapshot() {
    std::lock_guard lk(state->mu);
    std::vector<std::shared_ptr<TcpConnection>> out;
    for (auto& [id, c] : state->connections) out.push_back(c);
    return out;
  }
  size_t connectionCount() {
    std::lock_guard lk(state->mu);
    return state->connections.size();
  }
};

RemotingServer::RemotingServer(IoPool& pool, ServerOptions options, std::shared_ptr<Dispatcher> dispatcher)
    : impl_(std::make_unique<Impl>(pool, std::move(options), std::move(dispatcher))) {}

RemotingServer::~RemotingServer() { stop(std::chrono::milliseconds(0)); }

Result<void> RemotingServer::start() {
  auto& o = impl_->options;
  if (o.tls.mode != TlsMode::Disabled && !o.tls.context)
    return makeError(ResponseCode::SYSTEM_ERROR, "remoting: tls.server.mode is not disabled but no TLS context was made");
  auto listening = listenTcp(impl_->pool.at(0), o.host, o.port, "remoting");
  if (!listening) return listening.error();
  auto acc = std::move(*listening);
  impl_->port = acc->local_endpoint().port();
  impl_->acceptor = acc;
  impl_->running = true;
  asio::co_spawn(impl_->pool.at(0),
                 acceptLoop(acc, impl_->pool, impl_->limits, makeHooks(impl_->dispatcher, impl_->state), impl_->state,
                            o.tls),
                 asio::detached);
  if (o.tls.mode == TlsMode::Disabled) log::info("remoting: listening on {}:{}", o.host, impl_->port);
  else log::info("remoting: listening on {}:{} (tls.server.mode={}, {})", o.host, impl_->port, tlsModeName(o.tls.mode),
                 o.tls.context ? o.tls.context->description() : "no context");
  return {};
}

uint16_t RemotingServer::port() const { return impl_->port; }
size_t RemotingServer::connectionCount() const { return impl_->connectionCount(); }

void RemotingServer::setConnectionOptions(const ConnectionOptions& options) { impl_->limits->store(options); }
ConnectionOptions RemotingServer::connectionOptions() const { return impl_->limits->load(); }

void RemotingServer::onConnectionClosed(std::function<void(const ConnectionPtr&)> cb) {
  impl_->state->onClosed = std::move(cb);
}

void RemotingServer::setHeldAnswer(HeldAnswer answer) { impl_->state->heldAnswer = std::move(answer); }

void RemotingServer::stop(std::chrono::milliseconds drain) {
  if (!impl_->running) return;
  impl_->running = false;
  impl_->state->stopped.store(true);
  closeAcceptor(impl_->pool.at(0), impl_->acceptor, impl_->pool.running());
  if (!impl_->pool.running()) return;  // no thread can run anything: the port is released

  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + drain;
  while (impl_->state->inFlight->load() > 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  for (auto& c : impl_->snapshot()) c->closeWhenFlushed();  // queued responses still go out
  auto flushDeadline = std::max(deadline, Clock::now() + std::chrono::milliseconds(200));
  while (impl_->connectionCount() > 0 && Clock::now() < flushDeadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  for (auto& c : impl_->snapshot()) c->close();
  while (impl_->connectionCount() > 0 && Clock::now() < flushDeadline + std::chrono::seconds(1))
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  log::info("remoting: server on port {} stopped", impl_->port);
}

}  // namespace rmq::net
