#pragma once
// TcpConnection: the Connection implementation over a TCP socket (server-accepted or client-made).
// Thread: all socket I/O, the reader, the writer and the thread's watchdog sweep run on the socket's
// io_context (one IoPool thread). Public methods may be called from any thread: sends are encoded
// on the caller's thread and posted; invoke() waiters live on the caller's executor.
// Lifecycle: create with make(), then start(); the reader's pending wait, a writer while frames
// are queued and request handlers (or LaterAnswers) keep it alive until it closes.
// close() (any side, decode error, idle / partial-frame / write-stall timeout) fails pending
// invokes with CLIENT_CONNECTION_CLOSED and calls onClosed exactly once.
// TLS (optional, given at make()): the same loops over a TlsSession on the same socket; a
// plaintext connection pays one null-pointer test per read or write call for it.
// Memory: an idle connection holds no read buffer (frames are read into a per-thread scratch
// buffer; only the bytes of an incomplete frame are kept, in a buffer of that frame's size).
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/steady_timer.hpp>
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "net/async_result.h"
#include "net/connection.h"
#include "net/held_answer.h"

namespace rmq::net {

class TlsSession;
class ConnectionWatchdog;

struct ConnectionHooks {
  RequestHandler onRequest;                                  // required
  std::function<void(const ConnectionPtr&)> onClosed;        // optional
  std::shared_ptr<std::atomic<int64_t>> inFlight;            // optional: counts running handlers
  // Optional: after each request whose handler returned (not threw), with the time since the handler
  // was called (the latency metrics: timed here, so a waiting request keeps no wrapping frame).
  std::function<void(int code, std::chrono::steady_clock::duration took)> onAnswered;
  // Optional. Set: a connection at its in-flight limit goes on reading, into a bounded hold
  // (kMaxHeldBytes), and asks this every kHeldPoll about each held request, so that a request
  // held too long is answered instead of waiting unseen in the socket; a request read while the
  // hold is full is asked about at once (holdFull). Unset: it stops reading at the limit.
  HeldAnswer answerHeld;
};
// Shared by all the connections of a server (one copy, not ~150 bytes in each connection).
using ConnectionHooksPtr = std::shared_ptr<const ConnectionHooks>;

class TcpConnection final : public Connection {
 public:
  // `options` fixed for this connection (clients), or shared and changeable while it runs (a
  // server's connections: LiveConnectionOptions).
  // `tls`: a session whose handshake is done (tls_handshake.h), or null for plaintext.
  // Requests held at the in-flight limit: at most this many bytes (frame + kHeldOverhead each),
  // looked at (ConnectionHooks::answerHeld) this often.
  static constexpr size_t kMaxHeldBytes = 4 * 1024 * 1024;
  static constexpr size_t kHeldOverhead = 512;  // a decoded request's header fields, roughly
  static constexpr std::chrono::milliseconds kHeldPoll{10};

  static std::shared_ptr<TcpConnection> make(asio::ip::tcp::socket socket, const ConnectionOptions& options,
                                             ConnectionHooks hooks, std::unique_ptr<TlsSession> tls = nullptr);
  static std::shared_ptr<TcpConnection> make(asio::ip::tcp::socket socket, LiveConnectionOptionsPtr options,
                                             ConnectionHooks hooks, std::unique_ptr<TlsSession> tls = nullptr);
  static std::shared_ptr<TcpConnection> make(asio::ip::tcp::socket socket, LiveConnectionOptionsPtr options,
                                             ConnectionHooksPtr hooks, std::unique_ptr<TlsSession> tls = nullptr);
  TcpConnection(asio::ip::tcp::socket socket, LiveConnectionOptionsPtr options, ConnectionHooksPtr hooks,
                std::unique_ptr<TlsSession> tls);
  ~TcpConnection() override;

  void start();

  uint64_t id() const override { return id_; }
  const std::string& remoteAddress() const override { return remote_; }
  const std::string& localAddress() const override { return local_; }
  bool isOpen() const override { return open_.load(std::memory_order_acquire); }
  bool isTls() const { return tls_ != nullptr; }
  void close() override;
  // Closes once every queued frame has been written (used by graceful server stop).
  void closeWhenFlushed();

  asio::awaitable<Result<RemotingCommand>> invoke(RemotingCommand request,
                                                  std::chrono::milliseconds timeout) override;
  void sendOneway(RemotingCommand request) override;
  void sendResponse(const RemotingCommand& request, RemotingCommand response) override;
  LaterAnswer answerLater(const RemotingCommand& request) override;
  asio::any_io_executor ioExecutor() override { return socket_.get_executor(); }

 private:
  using Waiter = AsyncResult<Result<RemotingCommand>>;
  struct OutFrame {
    std::string prefix;                    // length words + header
    std::string body;                      // owned body (moved in, not copied)
    std::vector<BodySegment> segments;     // zero-copy tail
    std::shared_ptr<const void> owner;     // keeps `segments` alive until written
  };

  void send(RemotingCommand& cmd);  // encodes here, queues on the connection thread
  void enqueue(OutFrame frame);     // connection thread
  void takeQueued(size_t max);      // connection thread: queue_ -> writing_
  static size_t frameBytes(const OutFrame& f);
  template <class F> void runOnConnection(F&& f);
  // Connection thread. `problem` = peer misbehaved or I/O failed (logged as a warning).
  void closeNow(std::string_view reason, bool problem);
  void failPending();
  void onFrame(RemotingCommand cmd);
  void completeResponse(RemotingCommand cmd);
  // Read side (tcp_connection_io.cpp), connection thread.
  enum class ReadStatus { More, Drained, WantWrite, Closed };  // WantWrite: TLS needs to send first
  ReadStatus readAvailable();                    // non-blocking reads until drained or closed
  // One non-blocking read of up to `room` bytes into `into` (n); what comes after them, and a
  // close reason when the peer ended the stream (the bytes read before it are handled first).
  ReadStatus readSocket(char* into, size_t room, size_t& n, std::string& endReason, bool& endProblem);
  bool consume(const char* data, size_t size);  // frames out of freshly read bytes; false = closed
  bool completePartial(const char*& data, size_t& size);
  bool checkLength(uint32_t total);                     // false = bad, connection closed
  bool dispatchFrame(const char* frame, size_t size);  // decode + onFrame (or hold); false = closed
  // Backpressure. Reading stops while too much output is pending, or while too many requests run
  // and nothing more may be held (no answerHeld hook, or the hold is full).
  bool outputPaused() const;
  bool requestsPaused() const;  // in-flight limit reached: no further request is handed on
  bool holdFull() const;        // the in-flight limit is reached and nothing more may be held
  bool readPaused() const;
  void resumeReading();     // wakes a paused reader when the pressure is gone
  // The hold (answerHeld set): requests read at the in-flight limit, in read order.
  bool mustHold() const { return hooks_->answerHeld && (heldHead_ < held_.size() || requestsPaused()); }
  void hold(RemotingCommand cmd, size_t frameSize);
  bool answerOverflow(const RemotingCommand& cmd);  // the hold is full: answered now (true) or held
  void releaseHeld();        // hands held requests on, oldest first, while the limit allows
  void compactHeld();
  void answerHeldTooLong();  // answers the held requests answerHeld answers; keeps the others
  asio::awaitable<void> heldWatch(std::shared_ptr<TcpConnection> self);  // runs while requests are held
  // The limits in time (ConnectionWatchdog's sweep, connection thread): the reason to close now if
  // a deadline (idle, incomplete frame, write stall) has passed, else nullopt.
  struct Overdue {
    std::string reason;
    bool problem = false;
  };
  std::optional<Overdue> overdue(std::chrono::steady_clock::time_point now) const;
  void closeIfOverdue(std::chrono::steady_clock::time_point now);

  std::shared_ptr<TcpConnection> self() { return std::static_pointer_cast<TcpConnection>(shared_from_this()); }
  // The reader: completion handlers, no coroutine (an idle connection keeps one pending socket wait
  // holding `self`, no frames). Connection thread.
  void startReading();  // links the thread's watchdog, then reads
  void readStep();      // reads while bytes are there, then waits for readiness or for resumeReading()
  void waitSocket(asio::socket_base::wait_type what);
  void waitResume();    // backpressure: until resumeReading() (or close) cancels readResume_
  void onResumed();
  // Each coroutine holds `self` so the connection lives while it runs.
  // Writes queued frames until none is left, then ends: started by enqueue() when no writer runs,
  // so an idle connection or a parked long poll keeps no writer coroutine and no wake-up timer.
  asio::awaitable<void> writeBurst(std::shared_ptr<TcpConnection> self);
  asio::awaitable<asio::error_code> writeGathered();  // writes all of gather_
  asio::awaitable<asio::error_code> writeGatheredTls();  // the same through tls_ (packs small pieces)
  asio::awaitable<asio::error_code> writeTls(const char* data, size_t size);
  void finishLater(const RequestInfo& info, std::optional<RemotingCommand> response) override;
  using HandlerWork = asio::awaitable<std::optional<RemotingCommand>>;
  // Awaits the handler's work (called in onFrame); its frame holds no copy of the request, so a
  // request that waits (a parked long poll) costs only the handler's own frame.
  asio::awaitable<void> handleRequest(std::shared_ptr<TcpConnection> self, RequestInfo info, HandlerWork work);
  // Sends the answer (or SYSTEM_ERROR with `failure` when the handler threw) and ends the request.
  void finishRequest(const RequestInfo& info, std::optional<RemotingCommand> response,
                     const std::optional<std::string>& failure);

  asio::ip::tcp::socket socket_;
  std::unique_ptr<TlsSession> tls_;  // null: plaintext. Freed with the connection, not at close
  std::unique_ptr<char[]> tlsStage_;  // TLS writes: small pieces packed into one record (during a burst only)
  LiveConnectionOptionsPtr options_;  // read where used: a change applies to the next use
  ConnectionHooksPtr hooks_;  // never null
  uint64_t id_;
  std::string remote_, local_;
  std::atomic<bool> open_{true};
  bool closeWhenFlushed_ = false;

  // Connection-thread state.
  // Frames waiting for the writer, oldest first from queueHead_ (a vector: an empty one allocates
  // nothing, where a std::deque holds ~600 bytes from construction on every idle connection).
  std::vector<OutFrame> queue_;
  size_t queueHead_ = 0;
  std::vector<OutFrame> writing_;
  std::vector<asio::const_buffer> gather_;
  size_t outBytes_ = 0;    // queued + being written
  size_t inFlight_ = 0;    // requests of this connection being handled
  RequestInfo* handing_ = nullptr;  // the request whose handler is being called (answerLater() clears it)
  bool writerRunning_ = false;  // a writeBurst is on its way (started and not ended)
  bool writeBusy_ = false;      // its write syscall is pending (the stall watchdog's)
  std::chrono::steady_clock::time_point writeSince_;  // start of the pending write syscall
  // A paused reader waits here; made at the first pause (most connections never pause).
  std::unique_ptr<asio::steady_timer> readResume_;
  bool readerWaiting_ = false;
  // The io thread's ConnectionWatchdog while this connection is watched: its list's links.
  friend class ConnectionWatchdog;
  ConnectionWatchdog* watchdog_ = nullptr;
  TcpConnection* watchPrev_ = nullptr;
  TcpConnection* watchNext_ = nullptr;
  std::chrono::steady_clock::time_point lastActivity_;
  std::chrono::steady_clock::time_point readAt_;  // the last read that returned bytes: receivedAt of its frames
  // An incomplete frame: its bytes so far (capacity = its full size once known) and first byte time.
  std::unique_ptr<char[]> partial_;
  size_t partialLen_ = 0, partialCap_ = 0;  // cap 4 while the length prefix is incomplete
  std::chrono::steady_clock::time_point frameStart_;
  // Frames read but not yet handed on because backpressure began mid-buffer (at most one read).
  std::string backlog_;
  // Held requests (answerHeld set): [heldHead_, end) still held, oldest first; heldBytes_ counts
  // them against kMaxHeldBytes. An empty vector allocates nothing.
  struct HeldRequest {
    RemotingCommand cmd;
    size_t bytes = 0;
  };
  std::vector<HeldRequest> held_;
  size_t heldHead_ = 0, heldBytes_ = 0;
  bool heldWatching_ = false, releasingHeld_ = false;
  bool holdBlocked_ = false;  // a request the hook would not answer met a full hold: stop reading

  std::mutex pendingMu_;  // invoke() runs on any executor
  std::unordered_map<int32_t, std::shared_ptr<Waiter>> pending_;
};

}  // namespace rmq::net
