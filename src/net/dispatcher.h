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
  // the processor is called here and its awaitable returned (wrapped only to time it), so a
  // suspended request holds no dispatcher frame with a copy of the request.
  asio::awaitable<std::optional<RemotingCommand>> dispatch(ConnectionPtr conn, RemotingCommand cmd) const;
  bool has(int code) const { return handlers_.count(code) != 0; }
  // Called on the handler's thread after each registered processor returned, with the time it
  // took (request latency metrics). Set before serving; must be cheap and thread-safe.
  using Observer = std::function<void(int code, std::chrono::steady_clock::duration elapsed)>;
  void setObserver(Observer observer) { observer_ = std::move(observer); }

 private:
  std::unordered_map<int, RequestHandler> handlers_;
  RequestHandler default_;
  // Awaits `work` (the handler's coroutine, already called at `start`) and reports its time.
  asio::awaitable<std::optional<RemotingCommand>> timed(asio::awaitable<std::optional<RemotingCommand>> work, int code,
                                                        std::chrono::steady_clock::time_point start) const;

  Observer observer_;
  Guard guard_;
};

}  // namespace rmq::net
