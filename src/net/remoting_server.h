#pragma once
// RemotingServer: accept loop on one port; each accepted socket becomes a Connection on an
// io_context from the IoPool; requests go to the Dispatcher. With TLS (ServerOptions::tls) a
// connection first passes admitConnection (tls_handshake.h) on that io_context: first byte, then
// the handshake within partialFrameTimeout; a refused one is logged and closed. Graceful stop: stop accepting,
// let in-flight requests finish within a deadline, then close everything.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/result.h"
#include "net/connection.h"
#include "net/dispatcher.h"
#include "net/held_answer.h"
#include "net/io_pool.h"
#include "net/tls_handshake.h"

namespace rmq::net {

struct ServerOptions {
  std::string host = "0.0.0.0";
  uint16_t port = 0;  // 0 = pick a free port (see port())
  ConnectionOptions connection;
  // tls.server.mode: disabled (the default here: plaintext, the first byte is never looked at),
  // permissive (TLS or plaintext, by the first byte) or enforcing (TLS only). Java's servers
  // default to permissive; the roles pass what the config says (roles/tls_setup.h).
  ServerTls tls;
};

class RemotingServer {
 public:
  RemotingServer(IoPool& pool, ServerOptions options, std::shared_ptr<Dispatcher> dispatcher);
  ~RemotingServer();

  // Binds and starts accepting. Error (with a message naming the address) if bind fails.
  Result<void> start();
  uint16_t port() const;
  size_t connectionCount() const;  // open connections (any thread)
  // Replaces the limits of every connection, open and future (any thread; no restart): each
  // applies the new values at its next frame, write or watchdog wake-up (LiveConnectionOptions).
  void setConnectionOptions(const ConnectionOptions& options);
  ConnectionOptions connectionOptions() const;
  // Called on the connection's thread when a connection closes (either side). Set before start().
  void onConnectionClosed(std::function<void(const ConnectionPtr&)> cb);
  // Answers requests a connection holds at its in-flight limit (held_answer.h; the broker's busy
  // answer past a request's budget). Unset: a connection at its limit stops reading. Set before start().
  void setHeldAnswer(HeldAnswer answer);
  // Stops accepting, waits up to `drain` for in-flight requests, lets queued responses go out,
  // then closes all connections. Blocking: call from a non-IoPool thread, before pool.stop().
  void stop(std::chrono::milliseconds drain = std::chrono::milliseconds(3000));

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rmq::net
