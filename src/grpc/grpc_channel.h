#pragma once
// GrpcChannel: a gRPC client over one HTTP/2 connection (plaintext h2c with prior knowledge, or
// TLS with ALPN h2), for rmqbench's gRPC producer and for tests. Any number of calls are
// multiplexed on the connection (beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS they wait
// in nghttp2 until a stream frees).
//
//   auto ch = co_await GrpcChannel::connect("127.0.0.1", port, {});   // on an io_context thread
//   auto r = co_await (*ch)->unary("/pkg.Svc/Method", {{"x-mq-client-id", "c1"}}, bytes, 3s);
//   if (r.status.isOk()) use(r.response);
//
//   auto call = (*ch)->start("/pkg.Svc/Stream", {}, 10s);   // streaming: any mix of
//   call->write(m1); call->writesDone();                     //   writes, half-close,
//   while (auto m = co_await call->read()) ...;              //   reads (nullopt: no more),
//   Status s = co_await call->finish();                      //   and the final status
//
// Thread: the channel lives on the io_context whose thread awaited connect(); every call of it
// and of its ClientCalls must be made on that thread (co_spawn onto channel->executor()).
// Errors are gRPC statuses: a lost connection ends its calls with UNAVAILABLE, a deadline with
// DEADLINE_EXCEEDED (the request carries grpc-timeout, and the stream is reset when it passes).
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "grpc/grpc_status.h"
#include "net/tls_context.h"

namespace rmq::grpc {

using Metadata = std::vector<std::pair<std::string, std::string>>;  // lower-case names

struct ChannelOptions {
  net::TlsContextPtr tls;  // null: plaintext; else TLS (make it with makeGrpcClientTlsContext: ALPN h2)
  std::chrono::milliseconds connectTimeout{3000};  // TCP connect + TLS handshake
  size_t maxInboundMessageSize = 130 * 1024 * 1024;
  bool gzipRequests = false;  // send request messages gzip-compressed (grpc-encoding: gzip)
};

class ClientLink;

class ClientCall {
 public:
  ~ClientCall();
  bool write(std::string message);  // false once the call is over or writesDone() was called
  void writesDone();                 // half-close: END_STREAM after the written messages
  // The next response message; nullopt once the server ended the stream or the call is over.
  asio::awaitable<std::optional<std::string>> read();
  void cancel();  // RST_STREAM(CANCEL): the status becomes CANCELLED
  // Waits for the end of the call: the server's grpc-status, or CANCELLED / DEADLINE_EXCEEDED /
  // UNAVAILABLE / INTERNAL (reset, lost connection, a response that is not gRPC).
  asio::awaitable<Status> finish();
  bool done() const;
  // Response headers and trailers (without pseudo-headers and grpc-status / grpc-message).
  const Metadata& responseMetadata() const;
  int32_t streamId() const;

 private:
  friend class ClientLink;
  friend class GrpcChannel;
  struct State;
  explicit ClientCall(std::shared_ptr<State> state) : s_(std::move(state)) {}
  std::shared_ptr<State> s_;
};

struct UnaryResult {
  Status status;
  std::string response;  // the one response message (empty when the status is not OK)
  Metadata metadata;     // response headers and trailers
};

class GrpcChannel {
 public:
  static asio::awaitable<Result<std::shared_ptr<GrpcChannel>>> connect(std::string host, uint16_t port,
                                                                       ChannelOptions options);
  ~GrpcChannel();

  // timeout 0 = none.
  std::shared_ptr<ClientCall> start(std::string path, Metadata metadata,
                                    std::chrono::milliseconds timeout = std::chrono::milliseconds(0));
  asio::awaitable<UnaryResult> unary(std::string path, Metadata metadata, std::string request,
                                     std::chrono::milliseconds timeout = std::chrono::milliseconds(0));
  bool isOpen() const;
  void close();  // ends every call with UNAVAILABLE
  asio::io_context::executor_type executor() const;
  const std::string& localAddress() const;

 private:
  explicit GrpcChannel(std::shared_ptr<ClientLink> link) : link_(std::move(link)) {}
  std::shared_ptr<ClientLink> link_;
};

}  // namespace rmq::grpc
