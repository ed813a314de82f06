#pragma once
// H2Link: one HTTP/2 connection's socket side, shared by the server's connections and the client
// channel. nghttp2 is used sans-I/O: bytes read from the socket (plaintext, or decrypted by a
// TlsSession on the same fd) go into nghttp2_session_mem_recv; what nghttp2_session_mem_send
// produces is copied into one batch and written. Everything runs on the socket's io thread.
// Memory: reads go into the thread's scratch buffer (net/io_scratch.h); the write batch is
// released once a write leaves nothing queued, and nghttp2's frame buffer once the link has been
// quiet for a second (h2_memory.h), so an idle link holds little more than the session's state.
#include <nghttp2/nghttp2.h>

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


#include "grpc/h2_memory.h"

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
  // nghttp2's error_callback2 for both sides (user_data: the H2Link*): remembers nghttp2's last
  // complaint, the reason of a session it ended with GOAWAY (for the close log line).
  // Link thread, from a session's frame-sent callback: a GOAWAY with this error code went out.
  void goAwaySent(uint32_t code) { goAwayCode_ = code; }
  static int onSessionError(nghttp2_session*, int libErrorCode, const char* message, size_t length, void* link);
  // on_invalid_frame_recv_callback: the same, for a frame nghttp2 refused.
  static int onInvalidFrame(nghttp2_session*, const nghttp2_frame* frame, int libErrorCode, void* link);

 protected:
  // `what` names the side in log lines ("grpc", "grpc client"); maxPendingWriteBytes 0 = unbounded.
  H2Link(asio::ip::tcp::socket socket, std::unique_ptr<net::TlsSession> tls, std::string what,
         size_t maxPendingWriteBytes);
  // Starts the reader and the writer (on the link thread); the session must exist (and its SETTINGS
  // be submitted).
  void startIo();
  // Link thread. `problem`: the peer misbehaved or I/O failed (a warning, else an info line).
  void closeNow(std::string_view reason, bool problem);
  // Link thread: GOAWAY with `code`; the link closes once it is sent (reason logged then).
  void terminate(uint32_t code, std::string reason, bool problem);
  // Called once, on the link thread, after the socket closed: end every open stream.
  virtual void onClosed() = 0;
  // Link thread, whenever the writer has nothing to send and before it sleeps (and when its
  // timer fires): do what is due (PING, GOAWAY, close) and return when to look again.
  virtual Clock::time_point watch(Clock::time_point now) { return Clock::time_point::max(); }
  // Link thread: something watch() depends on changed (a first stream, the last one ended).
  void rewatch() { flush(); }

  SessionMemory memory_;  // the session's allocator: declared first, destroyed after the session
  nghttp2_session* session_ = nullptr;
  Clock::time_point lastRead_, lastActivity_;
  std::string what_;

 private:
  enum class ReadStatus { More, Drained, WantWrite, Closed };
  // The reader is a chain of handlers, not a coroutine: an idle link then holds one pending
  // wait on its socket and no coroutine frame for it.
  void readSome();
  void armRead(asio::ip::tcp::socket::wait_type what);
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
  asio::steady_timer writeSignal_;  // the writer sleeps on it: flush() wakes it, watch() sets it
  bool readerWaiting_ = false;
  std::string out_;  // the batch being written
  size_t queuedOutput_ = 0, maxPending_;
  std::string endReason_;  // set by terminate(): logged when the GOAWAY is out and the link closes
  bool endProblem_ = false;
  std::string lastError_;
  uint32_t goAwayCode_ = 0;  // of the GOAWAY we sent (0 = none, or NO_ERROR)
};

}  // namespace rmq::grpc
