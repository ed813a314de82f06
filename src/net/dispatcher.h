#pragma once
// Dispatcher: request code -> processor. Unknown codes get REQUEST_CODE_NOT_SUPPORTED (3) with
// remark " request type <code> not supported" unless a default processor is set.
// Register everything before the server starts / the client first connects: lookups are not
// synchronized with registration. A handler that throws becomes a SYSTEM_ERROR (1) response.
#include <chrono>
#include <functional>
#include <unordered_map>

#include "net/connection.h"

namespace rmq::net {

// An answer known at once, as the awaitable a RequestHandler returns: lets a handler be a plain
// function until it has to wait (its coroutine frame, kept while it waits, then holds only what the
// wait needs, not the request and its temporaries: a parked long poll is ~10 KB of memory).
asio::awaitable<std::optional<RemotingCommand>> answered(std::optional<RemotingCommand> response);

class Dispatcher {
 public:
  void registerProcessor(int code, RequestHandler handler);
  void setDefaultProcessor(RequestHandler handler);
  // Runs before every processor (Java's server RPC hook doBeforeRequest, e.g. the broker's ACL
  // check): a returned response answers the request instead (none for a oneway request).
  // Synchronous, on the network thread: CPU work only.
  using Guard = std::function<std::optional<RemotingCommand>(const Connection&, const RemotingCommand&)>;
  void setGuard(Guard guard) { guard_ = std::move(guard); }
  // Runs the processor for cmd.code (or the default, or answers code 3). Not a coroutine itself:
  // the processor is called here and its awaitable returned as it is, so a suspended request holds
  // no dispatcher frame (its time is taken by the connection: observe()).
  asio::awaitable<std::optional<RemotingCommand>> dispatch(ConnectionPtr conn, RemotingCommand cmd) const;
  bool has(int code) const { return handlers_.count(code) != 0; }
  // Called on the handler's thread after each request of a registered code was answered (also when
  // the guard answered it), with the time since its processor was called (request latency metrics).
  // Set before the server starts (its connections time requests only then); cheap and thread-safe.
  using Observer = std::function<void(int code, std::chrono::steady_clock::duration elapsed)>;
  void setObserver(Observer observer) { observer_ = std::move(observer); }
  bool observed() const { return static_cast<bool>(observer_); }
  // The server's connections report each answered request here (ConnectionHooks::onAnswered).
  void observe(int code, std::chrono::steady_clock::duration elapsed) const;

 private:
  std::unordered_map<int, RequestHandler> handlers_;
  RequestHandler default_;

  Observer observer_;
  Guard guard_;
};

}  // namespace rmq::net
