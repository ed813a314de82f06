#pragma once
// ServerStream: the ServerCall of one HTTP/2 stream of a ServerConnection. Request headers are
// collected while they arrive; the connection then either rejects the stream (rejectWith: a
// Trailers-Only answer) or hands it to its handler. Response: HEADERS on the first write, DATA
// pulled by nghttp2 from the Outbox, trailers once finished and drained; Trailers-Only when
// finish() comes before any write. A call that ends other than by finish() (RST_STREAM, deadline,
// oversized or undecodable message, connection lost) runs its cancel handler and ends read().
#include <nghttp2/nghttp2.h>

#include <atomic>
#include <utility>
#include <vector>

#include "grpc/server_call.h"
#include "grpc/stream_buffers.h"

namespace rmq::grpc {

class ServerConnection;

class ServerStream final : public ServerCall, public std::enable_shared_from_this<ServerStream> {
 public:
  using Clock = std::chrono::steady_clock;
  ServerStream(std::shared_ptr<ServerConnection> conn, int32_t id);
  ~ServerStream() override;

  // ServerCall
  const std::string& path() const override { return path_; }
  std::string_view metadata(std::string_view name) const override;
  const std::string& peerAddress() const override;
  const std::string& localAddress() const override;
  uint64_t connectionId() const override;
  bool isTls() const override;
  Clock::time_point deadline() const override { return deadline_; }
  asio::any_io_executor executor() const override;
  asio::awaitable<std::optional<std::string>> read() override;
  bool write(std::string message) override;
  void finish(Status status) override;
  bool done() const override { return done_.load(std::memory_order_acquire); }
  void setCancelHandler(std::function<void()> onCancel) override;

  // Link thread, by the connection.
  void addHeader(std::string_view name, std::string_view value);
  std::string_view header(std::string_view name) const { return metadata(name); }
  // The request headers were valid and name a handler: reader, deadline, open-call count.
  void accept(Clock::duration timeout, bool hasTimeout);
  void rejectWith(int httpStatus, Status status);  // Trailers-Only answer; no handler runs
  void onData(const uint8_t* data, size_t size);
  void onRemoteEnd();
  void onLocalEnd();  // our END_STREAM went out
  void onClose(uint32_t errorCode);
  bool finishedByHandler() const { return finished_; }

 private:
  static ssize_t readBody(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                          nghttp2_data_source* source, void*);
  template <class F> void onLink(F&& f);
  void doWrite(std::string message);
  void doFinish(Status status);
  void endWith(Status status, bool cancel);  // the transport ends the call (not the handler)
  void submitHeaders();
  void submitTrailersOnly(int httpStatus, const Status& status);
  void queueEnd(Status status);
  void markDone(bool cancelled);

  std::shared_ptr<ServerConnection> conn_;
  int32_t id_;
  std::string path_;
  std::vector<std::pair<std::string, std::string>> headers_;
  Clock::time_point deadline_ = Clock::time_point::max();
  Clock::time_point startedAt_;
  std::unique_ptr<Inbox> inbox_;  // made by accept()
  Outbox outbox_;
  Status status_;
  std::function<void()> onCancel_;
  std::atomic<bool> done_{false};
  bool accepted_ = false, headersSent_ = false, finished_ = false, cancelled_ = false;
  bool ended_ = false;  // trailers queued (by finish or by the transport)
  bool remoteEnded_ = false, closed_ = false, counted_ = false;
  std::unique_ptr<asio::steady_timer> deadlineTimer_;
};

}  // namespace rmq::grpc
