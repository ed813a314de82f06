#pragma once
// GrpcServer: the HTTP/2 + gRPC endpoint on our Asio io threads (nghttp2 as a sans-I/O HTTP/2
// engine: bytes read from the socket go into the session, bytes it wants to send are written with
// the connection's own writes). One port takes plaintext h2c (prior knowledge, the "PRI *"
// preface) and TLS (first byte 0x16, ALPN "h2"), like the 5.x proxy. Each accepted connection
// stays on one io thread (IoPool) for life, with its calls and their handlers.
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/result.h"
#include "grpc/server_call.h"
#include "net/connection.h"
#include "net/io_pool.h"
#include "net/tls_handshake.h"

namespace rmq::grpc {

struct GrpcServerOptions {
  std::string host = "0.0.0.0";
  uint16_t port = 0;  // 0 = pick a free port (see port())
  // idleTimeout (a connection with no open stream and nothing read or written this long is sent
  // GOAWAY and closed), partialFrameTimeout, maxPendingWriteBytes, writeStallTimeout.
  net::ConnectionOptions connection;
  // TLS and plaintext on one port: Permissive (both, by the first byte), Enforcing (TLS only) or
  // Disabled (plaintext only). The context must offer ALPN "h2".
  net::ServerTls tls;
  size_t maxInboundMessageSize = 130 * 1024 * 1024;  // the 5.x proxy's grpcMaxInboundMessageSize
  uint32_t maxConcurrentStreams = 1000;               // SETTINGS_MAX_CONCURRENT_STREAMS per connection
  // Keepalive of connections with open streams (dead peers holding Telemetry streams): silent this
  // long -> PING; no ack within keepaliveTimeout -> closed. 0 = off. PINGs from clients are always
  // answered (no strike policy: the 5.x C++ SDK pings every 60 s even without calls).
  std::chrono::milliseconds keepaliveTime{60000};
  std::chrono::milliseconds keepaliveTimeout{20000};
};

class GrpcServer {
 public:
  GrpcServer(net::IoPool& pool, GrpcServerOptions options);
  ~GrpcServer();

  // Registers the handler of one method path ("/apache.rocketmq.v2.MessagingService/QueryRoute").
  // Before start(). A path with no handler is answered UNIMPLEMENTED ("Method not found: <path>").
  void handle(std::string path, CallHandler handler);
  // Called once per finished call (any thread): path, final status, time from headers to finish.
  // For metrics; set before start().
  using CallObserver = std::function<void(std::string_view path, StatusCode code, std::chrono::nanoseconds elapsed)>;
  void setObserver(CallObserver observer);

  // Binds and starts accepting; an error names the address.
  Result<void> start();
  uint16_t port() const;
  size_t connectionCount() const;  // open HTTP/2 connections (any thread)
  // Stops accepting, sends GOAWAY to every connection, waits up to `drain` for open calls to
  // finish, then closes everything. Blocking: call from a non-IoPool thread, before pool.stop().
  void stop(std::chrono::milliseconds drain = std::chrono::milliseconds(3000));

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rmq::grpc
