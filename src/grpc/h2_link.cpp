#include "grpc/h2_link.h"

#include <nghttp2/nghttp2.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

#include "common/log.h"
#include "net/io_scratch.h"
#include "net/tls_handshake.h"
#include "net/tls_session.h"

namespace rmq::grpc {
namespace {

using asio::experimental::as_tuple;
using asio::use_awaitable;

constexpr size_t kWriteBatch = 256 * 1024;  // bytes of frames gathered into one write
constexpr size_t kKeptBatch = 16 * 1024;    // a batch buffer bigger than this is freed when idle
constexpr auto kQuiet = std::chrono::seconds(1);  // nothing to send this long: nghttp2's frame buffer goes

std::atomic<uint64_t> nextLinkId{1};

std::string endpointOf(const asio::ip::tcp::socket& socket, bool remote) {
  asio::error_code ec;
  auto ep = remote ? socket.remote_endpoint(ec) : socket.local_endpoint(ec);
  return ec ? "unknown" : ep.address().to_string() + ":" + std::to_string(ep.port());
}

asio::io_context::executor_type ioExecutor(asio::ip::tcp::socket& socket) {
  return static_cast<asio::io_context&>(socket.get_executor().context()).get_executor();
}

}  // namespace

H2Link::H2Link(asio::ip::tcp::socket socket, std::unique_ptr<net::TlsSession> tls, std::string what,
               size_t maxPendingWriteBytes, std::chrono::seconds writeStall)
    : what_(std::move(what)),
      socket_(std::move(socket)),
      executor_(ioExecutor(socket_)),
      tls_(std::move(tls)),
      id_(nextLinkId.fetch_add(1)),
      peer_(endpointOf(socket_, true)),
      local_(endpointOf(socket_, false)),
      writeSignal_(executor_),
      stallTimer_(executor_),
      writeStall_(writeStall),
      maxPending_(maxPendingWriteBytes) {
  lastRead_ = lastActivity_ = Clock::now();
}

H2Link::~H2Link() {
  if (session_) nghttp2_session_del(session_);
}

void H2Link::startIo() {
  asio::error_code ec;
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  socket_.non_blocking(true, ec);
  auto self = shared_from_this();
  asio::post(executor_, [self] { self->readSome(); });
  asio::co_spawn(executor_, writeLoop(self), asio::detached);
}

void H2Link::flush() {
  if (isOpen()) writeSignal_.cancel();
}

void H2Link::dequeued(size_t bytes) {
  queuedOutput_ -= std::min(bytes, queuedOutput_);
}

void H2Link::close(std::string reason) {
  auto self = shared_from_this();
  asio::post(executor_, [self, reason = std::move(reason)] { self->closeNow(reason, false); });
}

void H2Link::closeNow(std::string_view reason, bool problem) {
  if (!open_.exchange(false, std::memory_order_acq_rel)) return;
  if (problem) log::warn("{}: connection {} (local {}) closed: {}", what_, peer_, local_, reason);
  else log::debug("{}: connection {} closed: {}", what_, peer_, reason);
  if (tls_) tls_->shutdown();
  asio::error_code ec;
  socket_.shutdown(asio::socket_base::shutdown_both, ec);
  socket_.close(ec);
  writeSignal_.cancel();
  stallTimer_.cancel();
  std::string().swap(out_);
  onClosed();
}

void H2Link::terminate(uint32_t code, std::string reason, bool problem) {
  if (endReason_.empty()) {
    endReason_ = std::move(reason);
    endProblem_ = problem;
  }
  nghttp2_session_terminate_session(session_, code);
  flush();
}

int H2Link::onSessionError(nghttp2_session*, int, const char* message, size_t length, void* link) {
  static_cast<H2Link*>(link)->lastError_.assign(message, length);
  return 0;
}

int H2Link::onInvalidFrame(nghttp2_session*, const nghttp2_frame* frame, int libErrorCode, void* link) {
  static_cast<H2Link*>(link)->lastError_ = "invalid frame (type " + std::to_string(frame->hd.type) + ", stream " +
                                           std::to_string(frame->hd.stream_id) + "): " + nghttp2_strerror(libErrorCode);
  return 0;
}

// The session wants neither to read nor to write: a GOAWAY went out (ours or after the peer's).
void H2Link::finishedByPeerOrSession() {
  if (!endReason_.empty()) return closeNow(endReason_, endProblem_);
  if (goAwayCode_ == NGHTTP2_NO_ERROR) return closeNow("session ended (GOAWAY)", false);
  // nghttp2 ended the session itself: a protocol error or a flood (rapid resets, too many frames).
  closeNow(std::string("HTTP/2: sent GOAWAY(") + nghttp2_http2_strerror(goAwayCode_) + ")" +
               (lastError_.empty() ? "" : ": " + lastError_),
           true);
}

// ---- reading ----------------------------------------------------------------------------------

net::ReadOutcome H2Link::readOnce() {
  char* into = net::scratchBuffer();
  auto got = net::readNonBlocking(socket_, tls_.get(), into, net::kScratchSize);
  size_t n = got.bytes;
  if (n > 0 && endReason_.empty()) {  // after our GOAWAY the rest is not looked at
    lastRead_ = lastActivity_ = Clock::now();
    auto rv = nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(into), n);
    if (rv < 0) {
      // Fatal to the session (a bad preface, a callback failure, a flood): GOAWAY, then close.
      terminate(NGHTTP2_PROTOCOL_ERROR, std::string("HTTP/2: ") + nghttp2_strerror(static_cast<int>(rv)), true);
      return net::ReadOutcome::Drained;
    }
    flush();  // SETTINGS acks, PING answers, WINDOW_UPDATEs and whatever the callbacks submitted
  }
  if (got.outcome == net::ReadOutcome::Closed) {
    closeNow(got.why, got.problem && isOpen());
    return net::ReadOutcome::Closed;
  }
  return isOpen() ? got.outcome : net::ReadOutcome::Closed;
}

void H2Link::readSome() {
  if (!isOpen()) return;
  if (readPaused()) {  // backpressure: the peer's next requests stay in the socket until output drains
    readerWaiting_ = true;
    return;
  }
  switch (readOnce()) {
    case net::ReadOutcome::Closed: return;
    case net::ReadOutcome::More:  // more is waiting: let the thread's other links run first
      asio::post(executor_, [self = shared_from_this()] { self->readSome(); });
      return;
    case net::ReadOutcome::WantWrite: return armRead(asio::ip::tcp::socket::wait_write);  // TLS needs a record out
    case net::ReadOutcome::Drained: return armRead(asio::ip::tcp::socket::wait_read);
  }
}

void H2Link::armRead(asio::ip::tcp::socket::wait_type what) {
  socket_.async_wait(what, [self = shared_from_this()](asio::error_code ec) {
    if (ec && self->isOpen()) self->closeNow("read failed: " + ec.message(), true);
    else self->readSome();
  });
}

// ---- writing ----------------------------------------------------------------------------------
// nghttp2_session_mem_send hands out one frame (or a DATA payload) at a time in its own buffer,
// valid until the next call, so the frames are copied into one batch: one write per batch.

bool H2Link::fillBatch() {
  while (out_.size() < kWriteBatch) {
    const uint8_t* data = nullptr;
    auto n = nghttp2_session_mem_send(session_, &data);
    if (n < 0) {
      closeNow(std::string("HTTP/2: ") + nghttp2_strerror(static_cast<int>(n)), true);
      return false;
    }
    if (n == 0) break;
    out_.append(reinterpret_cast<const char*>(data), static_cast<size_t>(n));
  }
  return isOpen();
}

asio::awaitable<asio::error_code> H2Link::writeBatch() {
  if (!tls_) {
    auto [ec, n] = co_await asio::async_write(socket_, asio::buffer(out_), as_tuple(use_awaitable));
    co_return ec;
  }
  auto ec = co_await net::writeAllTls(socket_, *tls_, out_.data(), out_.size(), &writeSince_);
  co_return ec;
}

void H2Link::watchStall() {
  if (stallArmed_ || writeStall_.count() == 0) return;
  stallArmed_ = true;
  stallTimer_.expires_at(writeSince_ + writeStall_);
  stallTimer_.async_wait([self = shared_from_this()](asio::error_code ec) {
    self->stallArmed_ = false;
    if (ec || !self->isOpen() || !self->writing_) return;
    if (Clock::now() < self->writeSince_ + self->writeStall_) return self->watchStall();  // progress meanwhile
    self->closeNow("peer not reading: no write progress for " + std::to_string(self->writeStall_.count()) + "s, " +
                       std::to_string(self->out_.size() + self->queuedOutput_) + " bytes pending",
                   true);
  });
}

asio::awaitable<void> H2Link::writeLoop(std::shared_ptr<H2Link> self) {
  bool released = false;
  auto lastWrite = Clock::now();
  while (isOpen()) {
    out_.clear();
    if (!fillBatch()) co_return;
    if (out_.empty()) {
      if (!nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_)) {
        finishedByPeerOrSession();
        co_return;
      }
      if (out_.capacity() > kKeptBatch) std::string().swap(out_);  // idle links keep no batch
      auto now = Clock::now();
      if (!released && now >= lastWrite + kQuiet) {  // quiet for a while: nothing is being written
        memory_.releaseIdle();
        std::string().swap(out_);  // nor a small batch buffer kept
        released = true;
      }
      auto next = watch(now);
      if (!isOpen()) co_return;
      if (nghttp2_session_want_write(session_)) continue;  // watch() queued a frame (PING, GOAWAY)
      writeSignal_.expires_at(released ? next : std::min(next, lastWrite + kQuiet));
      co_await writeSignal_.async_wait(as_tuple(use_awaitable));
      continue;
    }
    released = false;
    writing_ = true;
    writeSince_ = Clock::now();
    watchStall();
    auto ec = co_await writeBatch();
    writing_ = false;
    if (ec) {
      closeNow("write failed: " + (tls_ && !tls_->error().empty() ? "TLS: " + tls_->error() : ec.message()),
               isOpen());
      co_return;
    }
    lastWrite = lastActivity_ = Clock::now();
    if (readerWaiting_ && !readPaused()) {
      readerWaiting_ = false;
      readSome();
    }
  }
}

}  // namespace rmq::grpc
