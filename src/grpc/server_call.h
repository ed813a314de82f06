#pragma once
// ServerCall: one gRPC call (one HTTP/2 stream) as service code sees it. The transport (the HTTP/2
// connection, grpc_server.h) makes one per stream whose :path has a registered handler and spawns
// that handler on the connection's io thread; unary, server-streaming and bidirectional calls all
// use this one shape:
//   auto req = co_await call->read();      // nullopt: client half-closed / call over
//   call->write(encodedResponse);           // 0..n response messages
//   call->finish(Status::ok());             // trailers; the stream ends
// Abstract so that service code can be unit-tested with an in-memory call (test/unit/...).
//
// Threads: read() must be co_awaited on executor() (the connection's io thread). write(),
// finish() and setCancelHandler() may be called from any thread (they post to the connection's
// thread when called elsewhere), so other subsystems (a transaction checker pushing a command on a
// client's Telemetry stream) can hold the call and write to it.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "grpc/grpc_status.h"

namespace rmq::grpc {

class ServerCall {
 public:
  virtual ~ServerCall() = default;

  // "/apache.rocketmq.v2.MessagingService/SendMessage"
  virtual const std::string& path() const = 0;
  // Request metadata by lower-case name (HTTP/2 header names are lower-case): "x-mq-client-id",
  // "authorization", ... Empty when absent. Binary ("-bin") values are returned as sent (base64).
  virtual std::string_view metadata(std::string_view name) const = 0;
  virtual const std::string& peerAddress() const = 0;   // "127.0.0.1:53122"
  virtual const std::string& localAddress() const = 0;  // "127.0.0.1:8081"
  virtual uint64_t connectionId() const = 0;             // the same for every call of one connection
  virtual bool isTls() const = 0;
  // From the request's grpc-timeout; time_point::max() when the client set none.
  virtual std::chrono::steady_clock::time_point deadline() const = 0;
  virtual asio::any_io_executor executor() const = 0;

  // The next request message (the protobuf bytes, out of gRPC's 5-byte framing). nullopt once the
  // client half-closed its side (END_STREAM: no more messages) or the call is over (cancelled,
  // connection closed, finished). A message over the server's inbound limit never reaches here:
  // the transport ends the call with RESOURCE_EXHAUSTED.
  virtual asio::awaitable<std::optional<std::string>> read() = 0;
  // Queues one response message (framed by the transport); the first write sends the response
  // headers. false: the call is over, nothing is sent.
  virtual bool write(std::string message) = 0;
  // Ends the call: grpc-status / grpc-message trailers after the queued messages (a
  // Trailers-Only response when nothing was written). Only the first call counts; writes after it
  // return false.
  virtual void finish(Status status) = 0;
  // True once the call is over: finished, cancelled by the client (RST_STREAM), past its
  // deadline, or its connection closed.
  virtual bool done() const = 0;
  // `onCancel` runs once, on the connection's thread, when the call ends other than by finish()
  // (client cancel, deadline, connection closed). A parked long poll uses it to stop waiting and
  // hand back what it held. Runs at once (on the connection's thread) if that already happened.
  virtual void setCancelHandler(std::function<void()> onCancel) = 0;
};

using ServerCallPtr = std::shared_ptr<ServerCall>;

// A registered method's handler: spawned on the call's executor when the request headers arrive.
// It owns the call's life: it must finish() it (the transport finishes an unfinished call with
// INTERNAL "handler ended without a status" when the coroutine returns or throws).
using CallHandler = std::function<asio::awaitable<void>(ServerCallPtr)>;

}  // namespace rmq::grpc
