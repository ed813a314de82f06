#include "net/remoting_client.h"

#include <asio/co_spawn.hpp>
#include <asio/connect.hpp>
#include <asio/detached.hpp>
#include <fmt/format.h>

#include <future>
#include <mutex>
#include <unordered_map>

#include "common/log.h"
#include "common/response_code.h"
#include "net/async_result.h"
#include "net/tcp_connection.h"
#include "net/tls_handshake.h"

namespace rmq::net {
namespace {

using asio::experimental::as_tuple;
using asio::use_awaitable;
using ConnectResult = AsyncResult<Result<ConnectionPtr>>;
using SteadyClock = std::chrono::steady_clock;

struct Entry {
  std::shared_ptr<TcpConnection> conn;
  std::shared_ptr<ConnectResult> pending;  // a connect in progress that later callers join
};

// Shared with connection callbacks and connect coroutines, which may outlive the client.
struct ClientState {
  std::mutex mu;
  std::unordered_map<std::string, Entry> entries;
  std::shared_ptr<Dispatcher> dispatcher = std::make_shared<Dispatcher>();
  bool shutdown = false;
};

Error connectError(const std::string& addr, const std::string& why) {
  return makeError(ResponseCode::CLIENT_CONNECT_FAILED, "connect to " + addr + " failed: " + why);
}

ConnectionHooks clientHooks(const std::shared_ptr<ClientState>& st, const std::string& addr) {
  ConnectionHooks h;
  h.onRequest = [d = st->dispatcher](ConnectionPtr c, RemotingCommand cmd) {
    return d->dispatch(std::move(c), std::move(cmd));
  };
  h.onClosed = [st, addr](const ConnectionPtr& c) {
    std::lock_guard lk(st->mu);
    auto it = st->entries.find(addr);
    if (it != st->entries.end() && it->second.conn == c) it->second.conn.reset();  // next call reconnects
  };
  return h;
}

asio::awaitable<Result<std::shared_ptr<TcpConnection>>> openSocket(const std::string& addr, ClientOptions options,
                                                                   std::shared_ptr<ClientState> st) {
  auto colon = addr.rfind(':');
  if (colon == std::string::npos || colon == 0) co_return connectError(addr, "address is not host:port");
  std::string host = addr.substr(0, colon), port = addr.substr(colon + 1);
  auto ex = co_await asio::this_coro::executor;
  asio::ip::tcp::resolver resolver(ex);
  auto [rec, endpoints] = co_await resolver.async_resolve(host, port, as_tuple(use_awaitable));
  if (rec) co_return connectError(addr, rec.message());

  auto socket = std::make_shared<asio::ip::tcp::socket>(ex);
  auto timer = std::make_shared<asio::steady_timer>(ex, options.connectTimeout);
  auto timedOut = std::make_shared<bool>(false);
  timer->async_wait([socket, timedOut](asio::error_code ec) {
    if (ec) return;
    *timedOut = true;
    socket->close(ec);
  });
  auto [ec, ep] = co_await asio::async_connect(*socket, endpoints, as_tuple(use_awaitable));
  timer->cancel();
  if (*timedOut) co_return connectError(addr, "timeout after " + std::to_string(options.connectTimeout.count()) + "ms");
  if (ec) co_return connectError(addr, ec.message());
  std::unique_ptr<TlsSession> session;
  if (options.tls) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(timer->expiry() - SteadyClock::now());
    auto tls = co_await connectTls(*socket, *options.tls, std::max(left, std::chrono::milliseconds(1)));
    if (!tls) co_return connectError(addr, tls.error().message);
    session = std::move(*tls);
  }
  ConnectionOptions limits = options.connection;
  limits.writeStallTimeout = std::chrono::seconds(0);  // server-side only (ClientOptions)
  // Reading answers never creates output, so a client must not stop reading because its own
  // requests are queued: the server would fill with unread answers and stop reading it (deadlock).
  limits.maxPendingWriteBytes = 0;
  co_return TcpConnection::make(std::move(*socket), limits, clientHooks(st, addr), std::move(session));
}

// Runs on an IoPool thread; publishes the outcome to every caller waiting on `result`.
asio::awaitable<void> connectTask(std::string addr, ClientOptions options, std::shared_ptr<ClientState> st,
                                  std::shared_ptr<ConnectResult> result) {
  Result<std::shared_ptr<TcpConnection>> r = connectError(addr, "internal error");
  try {
    r = co_await openSocket(addr, options, st);
  } catch (const std::exception& e) {
    r = connectError(addr, e.what());
  }
  bool closeIt = false;
  {
    std::lock_guard lk(st->mu);
    auto& e = st->entries[addr];
    if (e.pending == result) e.pending.reset();
    if (r.ok()) {
      if (st->shutdown) closeIt = true;
      else e.conn = r.value();
    }
  }
  if (!r.ok()) {
    log::warn("remoting: {}", r.error().message);
    result->set(r.error());
    co_return;
  }
  auto conn = r.value();
  conn->start();
  if (closeIt) conn->close();
  result->set(ConnectionPtr(conn));
}

}  // namespace

namespace {

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds msSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
}

// Why no permit came: the client shut down, or none was free in time (Java
// NettyRemotingAbstract.invokeAsyncImpl / invokeOnewayImpl): `what` is "invokeAsyncImpl" or
// "invokeOnewayImpl", `valueName` "semaphoreAsyncValue" / "semaphoreOnewayValue".
Error noPermitError(const std::string& addr, const AsyncSemaphore& sem, std::string_view what,
                    std::string_view valueName, std::chrono::milliseconds waited) {
  if (sem.closed()) return connectError(addr, "client shut down");
  if (waited.count() <= 0) return makeError(ResponseCode::CLIENT_TOO_MUCH_REQUEST, fmt::format("{} invoke too fast", what));
  auto info = fmt::format("{} tryAcquire semaphore timeout, {}ms, waiting thread nums: {} {}: {}", what, waited.count(),
                          sem.waiting(), valueName, sem.available());
  log::warn("remoting: {}", info);
  return makeError(ResponseCode::CLIENT_TIMEOUT, std::move(info));
}

// A oneway frame's permit rides with its body: TcpConnection releases bodyOwner once the frame is
// written, or drops it with the frame when the connection is closed.
struct OnewayInFlight {
  AsyncPermit permit;
  std::shared_ptr<const void> bodyOwner;
};

}  // namespace

struct RemotingClient::Impl {
  IoPool& pool;
  ClientOptions options;
  std::shared_ptr<ClientState> state = std::make_shared<ClientState>();
  std::shared_ptr<AsyncSemaphore> asyncPermits = AsyncSemaphore::make(options.clientAsyncSemaphoreValue);
  std::shared_ptr<AsyncSemaphore> onewayPermits = AsyncSemaphore::make(options.clientOnewaySemaphoreValue);
};

RemotingClient::RemotingClient(IoPool& pool, ClientOptions options)
    : impl_(std::make_unique<Impl>(Impl{pool, options})) {}

const AsyncSemaphore& RemotingClient::asyncPermits() const { return *impl_->asyncPermits; }
const AsyncSemaphore& RemotingClient::onewayPermits() const { return *impl_->onewayPermits; }

RemotingClient::~RemotingClient() { shutdown(); }

Dispatcher& RemotingClient::dispatcher() { return *impl_->state->dispatcher; }

asio::awaitable<Result<ConnectionPtr>> RemotingClient::connect(const std::string& addr) {
  auto st = impl_->state;
  std::shared_ptr<ConnectResult> pending;
  bool starter = false;
  {
    std::lock_guard lk(st->mu);
    if (st->shutdown) co_return connectError(addr, "client shut down");
    auto& e = st->entries[addr];
    if (e.conn && e.conn->isOpen()) co_return ConnectionPtr(e.conn);
    if (!e.pending) {
      e.pending = std::make_shared<ConnectResult>();
      starter = true;
    }
    pending = e.pending;
  }
  if (starter) asio::co_spawn(impl_->pool.next(), connectTask(addr, impl_->options, st, pending), asio::detached);
  // The connect task has its own timeout; the margin only guards against a stopped pool.
  if (!co_await pending->wait(impl_->options.connectTimeout + std::chrono::seconds(2)))
    co_return connectError(addr, "timeout");
  co_return pending->value();
}

asio::awaitable<Result<RemotingCommand>> RemotingClient::invoke(const std::string& addr, RemotingCommand request,
                                                                std::chrono::milliseconds timeout) {
  auto start = std::chrono::steady_clock::now();
  auto conn = co_await connect(addr);
  if (!conn) co_return conn.error();
  auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  if (spent >= timeout)
    co_return makeError(ResponseCode::CLIENT_TIMEOUT, "invoke " + addr + ": connect took the whole timeout");
  if (hook_) hook_(request);
  co_return co_await conn.value()->invoke(std::move(request), timeout - spent);
}

asio::awaitable<Result<RemotingCommand>> RemotingClient::invokeAsync(const std::string& addr,
                                                                     RemotingCommand request,
                                                                     std::chrono::milliseconds timeout) {
  const auto start = Clock::now();
  auto conn = co_await connect(addr);
  if (!conn) co_return conn.error();
  auto spent = msSince(start);
  if (timeout < spent)
    co_return makeError(ResponseCode::CLIENT_TOO_MUCH_REQUEST, "invokeAsync call the addr[" + addr + "] timeout");
  const auto wait = timeout - spent;
  auto permit = co_await impl_->asyncPermits->acquire(wait);
  if (!permit)
    co_return noPermitError(addr, *impl_->asyncPermits, "invokeAsyncImpl", "semaphoreAsyncValue", wait);
  spent = msSince(start);
  // Java sends even with 0 ms left (an answer that cannot come in time); we don't.
  if (timeout <= spent) co_return makeError(ResponseCode::CLIENT_TIMEOUT, "invokeAsyncImpl call timeout");
  if (hook_) hook_(request);
  co_return co_await conn.value()->invoke(std::move(request), timeout - spent);
  // `permit` goes back as this frame ends: answered, timed out, connection closed, or destroyed.
}

asio::awaitable<Result<void>> RemotingClient::invokeOneway(const std::string& addr, RemotingCommand request,
                                                           std::chrono::milliseconds timeout) {
  auto conn = co_await connect(addr);
  if (!conn) co_return conn.error();
  auto permit = co_await impl_->onewayPermits->acquire(timeout);
  if (!permit)
    co_return noPermitError(addr, *impl_->onewayPermits, "invokeOnewayImpl", "semaphoreOnewayValue", timeout);
  if (hook_) hook_(request);
  request.bodyOwner = std::make_shared<OnewayInFlight>(OnewayInFlight{std::move(*permit), std::move(request.bodyOwner)});
  conn.value()->sendOneway(std::move(request));
  co_return Result<void>{};
}

namespace {
// Runs `make()` on the pool and blocks the calling (non-pool) thread for its result.
template <class T, class MakeAwaitable>
T runBlocking(IoPool& pool, MakeAwaitable make) {
  auto promise = std::make_shared<std::promise<T>>();
  auto future = promise->get_future();
  asio::co_spawn(
      pool.next(),
      [promise, make = std::move(make)]() mutable -> asio::awaitable<void> {
        try {
          promise->set_value(co_await make());
        } catch (const std::exception& e) {
          promise->set_value(makeError(ResponseCode::SYSTEM_ERROR, e.what()));
        }
      },
      asio::detached);
  return future.get();
}
}  // namespace

Result<RemotingCommand> RemotingClient::invokeSync(const std::string& addr, RemotingCommand request,
                                                   std::chrono::milliseconds timeout) {
  return runBlocking<Result<RemotingCommand>>(
      impl_->pool, [this, addr, request = std::move(request), timeout]() mutable {
        return invoke(addr, std::move(request), timeout);
      });
}

Result<void> RemotingClient::invokeOnewaySync(const std::string& addr, RemotingCommand request,
                                              std::chrono::milliseconds timeout) {
  return runBlocking<Result<void>>(impl_->pool, [this, addr, request = std::move(request), timeout]() mutable {
    return invokeOneway(addr, std::move(request), timeout);
  });
}

void RemotingClient::closeConnection(const std::string& addr) {
  std::shared_ptr<TcpConnection> conn;
  {
    std::lock_guard lk(impl_->state->mu);
    auto it = impl_->state->entries.find(addr);
    if (it == impl_->state->entries.end()) return;
    conn = std::move(it->second.conn);
  }
  if (conn) conn->close();
}

void RemotingClient::shutdown() {
  // Requests still waiting for a permit give up first ("client shut down"): closing the
  // connections first would hand the permits their failed invokes give back to those waiters,
  // which would then fail on a closed connection instead (seen under ASan in CI).
  impl_->asyncPermits->close();
  impl_->onewayPermits->close();
  std::vector<std::shared_ptr<TcpConnection>> conns;
  {
    std::lock_guard lk(impl_->state->mu);
    impl_->state->shutdown = true;
    for (auto& [addr, e] : impl_->state->entries)
      if (e.conn) conns.push_back(std::move(e.conn));
    impl_->state->entries.clear();
  }
  for (auto& c : conns) c->close();  // their pending invokes fail: held permits come back
}

}  // namespace rmq::net
