#pragma once
// RemotingClient: connection cache per "host:port", invoke with timeout returning the response or
// an error value, oneway, and dispatch of server-initiated requests (NOTIFY_CONSUMER_IDS_CHANGED,
// ...) to registered processors. Safe to call from any thread; awaitables may be awaited from any
// executor.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/result.h"
#include "net/async_semaphore.h"
#include "net/connection.h"
#include "net/dispatcher.h"
#include "net/io_pool.h"
#include "net/tls_context.h"

namespace rmq::net {

struct ClientOptions {
  std::chrono::milliseconds connectTimeout{3000};
  // Java NettyClientConfig: at most this many invokeAsync / invokeOneway requests of this client
  // in flight at once (65535 each, as Java). A request waits (without blocking a thread) at most
  // its timeout for a permit. invoke() (Java's invokeSync) is never counted.
  int64_t clientAsyncSemaphoreValue = 65535;
  int64_t clientOnewaySemaphoreValue = 65535;
  // No idle close. writeStallTimeout is ignored: a client never closes its own connection because
  // its writes stall (the server stops reading a client that is slow to read its answers; that
  // client must keep its connection, not drop it). The write stall close is a server's defence.
  // maxPendingWriteBytes is ignored too: a client keeps reading its answers however many of its
  // own requests wait to be written (a paused client and a paused server would wait on each other).
  ConnectionOptions connection{16 * 1024 * 1024, std::chrono::seconds(0)};
  // Java tls.enable / NettyClientConfig.useTLS: every connection of this client speaks TLS with
  // this context (makeClientTlsContext); the handshake counts against connectTimeout. Null: plaintext.
  TlsContextPtr tls;
};

class RemotingClient {
 public:
  RemotingClient(IoPool& pool, ClientOptions options = {});
  ~RemotingClient();

  // Server-initiated requests arriving on any client connection go here.
  Dispatcher& dispatcher();

  asio::awaitable<Result<ConnectionPtr>> connect(const std::string& addr);
  // Java invokeSync: the caller awaits the answer; no permit taken.
  asio::awaitable<Result<RemotingCommand>> invoke(const std::string& addr, RemotingCommand request,
                                                  std::chrono::milliseconds timeout);
  // Java invokeAsync (fire-and-callback requests: the producer's sendAsync, ...): as invoke(), but
  // first takes one of clientAsyncSemaphoreValue permits, after the connect, waiting at most the
  // rest of `timeout`; held until the request ends (answer, timeout, connection closed, shutdown).
  // No permit: CLIENT_TOO_MUCH_REQUEST "invokeAsyncImpl invoke too fast" (no time left to wait) or
  // CLIENT_TIMEOUT "invokeAsyncImpl tryAcquire semaphore timeout, ..." (waited `timeout` in vain);
  // a connect that used more than `timeout`: CLIENT_TOO_MUCH_REQUEST "invokeAsync call the
  // addr[..] timeout" (Java's texts and classes).
  asio::awaitable<Result<RemotingCommand>> invokeAsync(const std::string& addr, RemotingCommand request,
                                                       std::chrono::milliseconds timeout);
  // Java invokeOneway: one of clientOnewaySemaphoreValue permits (waited for at most `timeout`;
  // "invokeOnewayImpl invoke too fast" / "invokeOnewayImpl tryAcquire semaphore timeout, ..."),
  // held until the frame is written to the socket (or dropped with its closed connection).
  asio::awaitable<Result<void>> invokeOneway(const std::string& addr, RemotingCommand request,
                                             std::chrono::milliseconds timeout = kOnewayTimeout);
  // Blocking wrappers for simple programs and tests (must not be called on an IoPool thread).
  Result<RemotingCommand> invokeSync(const std::string& addr, RemotingCommand request,
                                     std::chrono::milliseconds timeout);
  Result<void> invokeOnewaySync(const std::string& addr, RemotingCommand request,
                                std::chrono::milliseconds timeout = kOnewayTimeout);
  static constexpr std::chrono::milliseconds kOnewayTimeout{3000};

  // The two caps (permits free / waiting: tests, diagnostics).
  const AsyncSemaphore& asyncPermits() const;
  const AsyncSemaphore& onewayPermits() const;

  // Runs on every request just before it is sent by invoke*/invokeOneway* (Java's client RPC
  // hook doBeforeRequest; the client library signs requests with it). Set before first use.
  using RequestHook = std::function<void(RemotingCommand&)>;
  void setRequestHook(RequestHook hook) { hook_ = std::move(hook); }

  void closeConnection(const std::string& addr);
  void shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  RequestHook hook_;
};

}  // namespace rmq::net
