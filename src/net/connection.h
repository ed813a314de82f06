#pragma once
// Connection: one TCP connection speaking remoting frames, used by both the server and the
// client side (same read loop, ordered write queue and response matching for both).
// Thread: everything runs on the io_context the socket belongs to; public methods may be called
// from any thread (they post to it).
// Requests arriving on the connection are handed to a RequestHandler and processed
// concurrently: a suspended request (long poll, sync flush) never holds back the next one.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/result.h"
#include "net/remoting_command.h"

namespace rmq::net {

class Connection;
using ConnectionPtr = std::shared_ptr<Connection>;

// Handles one request; returns the response, or nullopt for "no response" (oneway, or answered
// later via Connection::sendResponse). The connection fills opaque, the response flag and the
// serialize type (= the request's) before writing.
using RequestHandler =
    std::function<asio::awaitable<std::optional<RemotingCommand>>(ConnectionPtr, RemotingCommand)>;

// Limits of one connection (what a misbehaving peer can cost; README "Limits").
struct ConnectionOptions {
  size_t maxFrameSize = 16 * 1024 * 1024;
  std::chrono::seconds idleTimeout{120};  // nothing read or written this long: close; 0 = none
  // A frame started but not complete this long after its first byte (slowloris): close; 0 = none.
  std::chrono::seconds partialFrameTimeout{30};
  // Backpressure: while more than this many response/request bytes wait to be written, or more
  // than maxInFlightRequests requests of this connection are being handled, no further requests
  // are read from it (TCP pushes back on the peer). 0 = unbounded.
  size_t maxPendingWriteBytes = 8 * 1024 * 1024;
  size_t maxInFlightRequests = 4096;
  // A write that makes no progress this long (the peer stopped reading): close; 0 = never. For a
  // server's connections only: a client never drops its own connection for this (ClientOptions).
  std::chrono::seconds writeStallTimeout{60};
};

// The ConnectionOptions in force for a set of connections (all those a server accepted), changed
// while they run (UPDATE_BROKER_CONFIG / UPDATE_NAMESRV_CONFIG): each connection reads the value it
// needs where it uses it (a relaxed atomic load, no lock), so a change applies to the next frame
// read, write started or timeout computed. A watchdog that a connection did not start because every
// timeout was 0 when it was accepted is not started later (connections accepted afterwards have it).
class LiveConnectionOptions {
 public:
  explicit LiveConnectionOptions(const ConnectionOptions& o) { store(o); }
  void store(const ConnectionOptions& o);
  ConnectionOptions load() const;

  size_t maxFrameSize() const { return maxFrameSize_.load(std::memory_order_relaxed); }
  std::chrono::seconds idleTimeout() const { return std::chrono::seconds(idleSeconds_.load(std::memory_order_relaxed)); }
  std::chrono::seconds partialFrameTimeout() const {
    return std::chrono::seconds(partialFrameSeconds_.load(std::memory_order_relaxed));
  }
  size_t maxPendingWriteBytes() const { return maxPendingWriteBytes_.load(std::memory_order_relaxed); }
  size_t maxInFlightRequests() const { return maxInFlightRequests_.load(std::memory_order_relaxed); }
  std::chrono::seconds writeStallTimeout() const {
    return std::chrono::seconds(writeStallSeconds_.load(std::memory_order_relaxed));
  }

 private:
  std::atomic<size_t> maxFrameSize_{0};
  std::atomic<int64_t> idleSeconds_{0}, partialFrameSeconds_{0}, writeStallSeconds_{0};
  std::atomic<size_t> maxPendingWriteBytes_{0}, maxInFlightRequests_{0};
};
using LiveConnectionOptionsPtr = std::shared_ptr<const LiveConnectionOptions>;

// What answering a request needs once its handler has the request itself.
struct RequestInfo {
  int32_t code = 0, opaque = 0;
  SerializeType type{};
  bool oneway = false;
  std::chrono::steady_clock::time_point start{};  // when its handler was called (timed connections only)
};

class LaterAnswer;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // Opaque of a request that expects an answer; a response for it completes invoke().
  virtual ~Connection() = default;

  virtual uint64_t id() const = 0;
  virtual const std::string& remoteAddress() const = 0;  // "ip:port"
  virtual const std::string& localAddress() const = 0;
  virtual bool isOpen() const = 0;
  virtual void close() = 0;

  // Sends a request and awaits its response (or an Error with code CLIENT_TIMEOUT /
  // CLIENT_CONNECTION_CLOSED). Used by clients and by the broker's calls to clients.
  // Assigns a fresh opaque (nextOpaque()). May be awaited from any single-threaded executor.
  virtual asio::awaitable<Result<RemotingCommand>> invoke(RemotingCommand request,
                                                          std::chrono::milliseconds timeout) = 0;
  // Sends a request flagged oneway; no answer is expected.
  virtual void sendOneway(RemotingCommand request) = 0;
  // Sends a response to `request` later (for handlers that returned nullopt).
  virtual void sendResponse(const RemotingCommand& request, RemotingCommand response) = 0;

  // Called by a request handler while the connection calls it (before the handler returns, not from
  // a coroutine that has waited): `request`'s answer will be given by the returned LaterAnswer, and
  // the awaitable the handler returns is dropped unawaited. So a request that waits long (a parked
  // long poll) can be kept as a small record instead of suspended coroutine frames. Empty when the
  // connection cannot (not while handing `request` over, or a connection kind without it): the
  // handler answers as usual then.
  virtual LaterAnswer answerLater(const RemotingCommand& request);
  // The executor the connection's requests run on (its io thread); empty for a connection kind without one.
  virtual asio::any_io_executor ioExecutor() { return {}; }

  // Arbitrary per-connection state for the layer above (e.g. the client id a heartbeat bound).
  std::shared_ptr<void> userData;

 protected:
  friend class LaterAnswer;
  // Ends a request answerLater() took: sends `response` (none: no answer) as the handler's would have been.
  virtual void finishLater(const RequestInfo& info, std::optional<RemotingCommand> response);
};

// The answer of one request, owed by whoever holds this (from any thread). The request counts as
// running (the in-flight limit, a server's drain, the latency observer's time) until send() or
// until this is destroyed unsent (then it ends without an answer, as a handler returning nullopt).
class LaterAnswer {
 public:
  LaterAnswer() = default;
  LaterAnswer(std::shared_ptr<Connection> conn, const RequestInfo& info) : conn_(std::move(conn)), info_(info) {}
  LaterAnswer(LaterAnswer&& other) noexcept = default;
  LaterAnswer& operator=(LaterAnswer&& other) noexcept;
  LaterAnswer(const LaterAnswer&) = delete;
  LaterAnswer& operator=(const LaterAnswer&) = delete;
  ~LaterAnswer() { send(std::nullopt); }

  explicit operator bool() const { return conn_ != nullptr; }
  // Sends the answer (opaque, response flag and serialize type filled in); once, then empty.
  void send(std::optional<RemotingCommand> response);
  Connection* connection() const { return conn_.get(); }

 private:
  std::shared_ptr<Connection> conn_;
  RequestInfo info_;
};

}  // namespace rmq::net
