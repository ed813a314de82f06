#pragma once
// ServerConnection: one accepted HTTP/2 connection of a GrpcServer (an H2Link with an nghttp2
// server session). Turns request HEADERS into ServerStreams (method, content-type and path
// checked; unknown paths answered UNIMPLEMENTED), spawns their handlers on this connection's io
// thread, feeds DATA into them, and watches the connection: idle timeout (no open stream, nothing
// read or written), keepalive (a silent connection with open streams is PINGed; no ack in time:
// closed). Link thread only, except goAway() and close().
#include <functional>
#include <mutex>
#include <unordered_map>

#include "grpc/grpc_server.h"
#include "grpc/h2_link.h"

namespace rmq::grpc {

class ServerStream;

// What every connection of one server shares (reference-counted: it outlives a timed-out stop()).
struct ServerShared {
  GrpcServerOptions options;
  std::unordered_map<std::string, CallHandler> handlers;
  GrpcServer::CallObserver observer;
  std::atomic<int64_t> openCalls{0};  // calls not finished yet (stop() waits for them)
  std::atomic<bool> stopped{false};
  std::mutex mu;
  std::unordered_map<uint64_t, std::shared_ptr<class ServerConnection>> connections;
};

class ServerConnection final : public H2Link {
 public:
  ServerConnection(asio::ip::tcp::socket socket, std::unique_ptr<net::TlsSession> tls,
                   std::shared_ptr<ServerShared> shared);
  // Makes the session, sends SETTINGS, starts the reader and the writer.
  bool start();
  // Any thread: GOAWAY (NO_ERROR): no new streams; the open ones go on.
  void goAway();

  ServerShared& shared() { return *shared_; }

 private:
  friend struct ServerCallbacks;
  void onClosed() override;
  void beginStream(int32_t id);
  void startCall(const std::shared_ptr<ServerStream>& stream);
  ServerStream* stream(int32_t id);
  // Idle timeout and keepalive, run by the writer whenever it has nothing to send.
  Clock::time_point watch(Clock::time_point now) override;

  std::shared_ptr<ServerShared> shared_;
  std::unordered_map<int32_t, std::shared_ptr<ServerStream>> streams_;
  std::optional<Clock::time_point> pingSentAt_;
};

}  // namespace rmq::grpc
