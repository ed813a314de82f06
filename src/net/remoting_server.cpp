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
};

namespace {

ConnectionHooks makeHooks(const std::shared_ptr<Dispatcher>& dispatcher, const std::shared_ptr<ServerState>& state) {
  ConnectionHooks h;
  h.onRequest = [d = dispatcher](ConnectionPtr c, RemotingCommand cmd) { return d->dispatch(std::move(c), std::move(cmd)); };
  h.onClosed = [s = state](const ConnectionPtr& c) {
    {
      std::lock_guard lk(s->mu);
      s->connections.erase(c->id());
    }
    if (s->onClosed) s->onClosed(c);
  };
  h.inFlight = state->inFlight;
  return h;
}

// Runs on pool.at(0); holds everything it touches so a destroyed server cannot dangle it.
asio::awaitable<void> acceptLoop(std::shared_ptr<asio::ip::tcp::acceptor> acc, IoPool& pool,
                                 LiveConnectionOptionsPtr options, ConnectionHooks hooks,
                                 std::shared_ptr<ServerState> state) {
  using asio::experimental::as_tuple;
  for (;;) {
    auto& ctx = pool.next();
    auto [ec, socket] = co_await acc->async_accept(ctx, as_tuple(asio::use_awaitable));
    if (ec == asio::error::operation_aborted || !acc->is_open()) co_return;
    if (ec) {  // e.g. EMFILE: keep serving, but do not spin
      co_await pauseAfterAcceptError(acc, ec, "remoting");
      continue;
    }
    auto conn = TcpConnection::make(std::move(socket), options, hooks);
    {
      std::lock_guard lk(state->mu);
      state->connections.emplace(conn->id(), conn);
    }
    conn->start();
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
  auto listening = listenTcp(impl_->pool.at(0), o.host, o.port, "remoting");
  if (!listening) return listening.error();
  auto acc = std::move(*listening);
  impl_->port = acc->local_endpoint().port();
  impl_->acceptor = acc;
  impl_->running = true;
  asio::co_spawn(impl_->pool.at(0),
                 acceptLoop(acc, impl_->pool, impl_->limits, makeHooks(impl_->dispatcher, impl_->state), impl_->state),
                 asio::detached);
  log::info("remoting: listening on {}:{}", o.host, impl_->port);
  return {};
}

uint16_t RemotingServer::port() const { return impl_->port; }
size_t RemotingServer::connectionCount() const { return impl_->connectionCount(); }

void RemotingServer::setConnectionOptions(const ConnectionOptions& options) { impl_->limits->store(options); }
ConnectionOptions RemotingServer::connectionOptions() const { return impl_->limits->load(); }

void RemotingServer::onConnectionClosed(std::function<void(const ConnectionPtr&)> cb) {
  impl_->state->onClosed = std::move(cb);
}

void RemotingServer::stop(std::chrono::milliseconds drain) {
  if (!impl_->running) return;
  impl_->running = false;
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
