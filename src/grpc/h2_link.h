#pragma once
// H2Link: one HTTP/2 connection's socket side, shared by the server's connections and the client
// channel. nghttp2 is used sans-I/O: bytes read from the socket (plaintext, or decrypted by a
// TlsSession on the same fd) go into nghttp2_session_mem_recv; what nghttp2_session_mem_send
// produces is copied into one batch and written. Everything runs on the socket's io thread.
// Memory: reads go into the thread's scratch buffer (net/io_scratch.h); the write batch is
// released once a write leaves nothing queued, so an idle link holds the nghttp2 session only.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

struct nghttp2_session;

namespace rmq::net {
class TlsSession;
}

namespace rmq::grpc {

class H2Link : public std::enable_shared_from_this<H2Link> {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~H2Link();
  H2Link(const H2Link&) = delete;
  H2Link& operator=(const H2Link&) = delete;

  asio::io_context::executor_type executor() const { return executor_; }
  bool onLinkThread() const { return executor_.running_in_this_thread(); }
  uint64_t id() const { return id_; }
  const std::string& peer() const { return peer_; }
  const std::string& local() const { return local_; }
  bool isTls() const { return tls_ != nullptr; }
  bool isOpen() const { return open_.load(std::memory_order_acquire); }
  // Any thread: closes the socket at once (no GOAWAY); open calls end as on a lost connection.
  void close(std::string reason);

  nghttp2_session* session() const { return session_; }
  // Link thread: frames were submitted to the session; the writer sends them.
  void flush();
  // Link thread: bytes a stream queued for sending (counted for backpressure) left its queue.
  void queued(size_t bytes) { queuedOutput_ += bytes; }
  void dequeued(size_t bytes);

 protected:
  // `what` names the side in log lines ("grpc", "grpc client"); maxPendingWriteBytes 0 = unbounded.
  H2Link(asio::ip::tcp::socket socket, std::unique_ptr<net::TlsSession> tls, std::string what,
         size_t maxPendingWriteBytes);
  // Starts the reader and the writer; the session must exist (and its SETTINGS be submitted).
  void startIo();
  // Link thread. `problem`: the peer misbehaved or I/O failed (a warning, else an info line).
  void closeNow(std::string_view reason, bool problem);
  // Link thread: GOAWAY with `code`; the link closes once it is sent (reason logged then).
  void terminate(uint32_t code, std::string reason, bool problem);
  // Called once, on the link thread, after the socket closed: end every open stream.
  virtual void onClosed() = 0;

  nghttp2_session* session_ = nullptr;
  Clock::time_point lastRead_, lastActivity_;
  std::string what_;

 private:
  enum class ReadStatus { More, Drained, WantWrite, Closed };
  asio::awaitable<void> readLoop(std::shared_ptr<H2Link> self);
  asio::awaitable<void> writeLoop(std::shared_ptr<H2Link> self);
  ReadStatus readOnce();
  ReadStatus readSocket(char* into, size_t room, size_t& n, std::string& why, bool& problem);
  bool fillBatch();  // mem_send into out_; false: a fatal session error (closed)
  asio::awaitable<asio::error_code> writeBatch();
  bool readPaused() const { return maxPending_ > 0 && queuedOutput_ + out_.size() > maxPending_; }
  void finishedByPeerOrSession();

  asio::ip::tcp::socket socket_;
  asio::io_context::executor_type executor_;
  std::unique_ptr<net::TlsSession> tls_;
  uint64_t id_;
  std::string peer_, local_;
  std::atomic<bool> open_{true};
  asio::steady_timer writeSignal_, readResume_;
  bool readerWaiting_ = false;
  std::string out_;  // the batch being written
  size_t queuedOutput_ = 0, maxPending_;
  std::string endReason_;  // set by terminate(): logged when the GOAWAY is out and the link closes
  bool endProblem_ = false;
};

}  // namespace rmq::grpc
