// TcpConnection's socket loops: the reader (frames out of a reusable buffer, completion handlers), the gathering
// writer (one burst at a time) and what the thread's watchdog asks (overdue). All run on the connection's io_context.
#include <algorithm>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <cstring>
#include <span>

#include "common/bytes.h"
#include "common/log.h"
#include "net/connection_watchdog.h"
#include "net/frame_codec.h"
#include "net/io_scratch.h"
#include "net/tcp_connection.h"
#include "net/tls_handshake.h"
#include "net/tls_session.h"

namespace rmq::net {
namespace {

using asio::experimental::as_tuple;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

constexpr size_t kMaxFramesPerWrite = 64;       // coalescing bound per gathered write
constexpr size_t kMaxIovecs = 64;               // asio passes at most 64 buffers to one sendmsg
constexpr size_t kTlsRecord = 16 * 1024;        // TLS plaintext per record

}  // namespace

asio::awaitable<void> TcpConnection::writeBurst(std::shared_ptr<TcpConnection> self) {
  // Started from enqueue(): let the frames queued in this turn of the thread join the first write.
  co_await asio::post(socket_.get_executor(), use_awaitable);
  while (queueHead_ < queue_.size() && isOpen()) {
    // Coalesce every ready frame (bounded) into one gather write: prefix, body, segments.
    writing_.clear();
    gather_.clear();
    takeQueued(kMaxFramesPerWrite);
    for (auto& f : writing_) {
      gather_.emplace_back(f.prefix.data(), f.prefix.size());
      if (!f.body.empty()) gather_.emplace_back(f.body.data(), f.body.size());
      for (auto& s : f.segments)
        if (s.size) gather_.emplace_back(s.data, s.size);
    }
    size_t bytes = 0;
    for (auto& f : writing_) bytes += frameBytes(f);
    writeBusy_ = true;
    writeSince_ = Clock::now();
    // Not `tls_ ? co_await ... : co_await ...`: GCC 12 mishandles co_await inside ?:.
    asio::error_code ec;
    if (tls_) {
      ec = co_await writeGatheredTls();
    } else {
      ec = co_await writeGathered();
    }
    writeBusy_ = false;
    writing_.clear();
    if (writing_.capacity() > 8) {  // a burst's arrays are not kept by an idle connection
      std::vector<OutFrame>().swap(writing_);
      std::vector<asio::const_buffer>().swap(gather_);
    }
    if (queue_.empty() && queue_.capacity() > 8) std::vector<OutFrame>().swap(queue_);
    if (queue_.empty()) tlsStage_.reset();  // an idle TLS connection keeps no staging buffer
    outBytes_ -= std::min(bytes, outBytes_);
    if (ec) {
      writerRunning_ = false;
      closeNow("write failed: " + (tls_ && !tls_->error().empty() ? "TLS: " + tls_->error() : ec.message()), isOpen());
      co_return;
    }
    lastActivity_ = Clock::now();
    resumeReading();
  }
  writerRunning_ = false;
  if (closeWhenFlushed_) closeNow("flushed for shutdown", false);
}

// Moves up to `max` queued frames, oldest first, into writing_ (empty). All of them at once is a
// swap; a longer queue is taken from queueHead_ and compacted once half of it has gone.
void TcpConnection::takeQueued(size_t max) {
  size_t take = std::min(max, queue_.size() - queueHead_);
  if (queueHead_ == 0 && take == queue_.size()) {
    writing_.swap(queue_);
    return;
  }
  auto first = queue_.begin() + static_cast<std::ptrdiff_t>(queueHead_);
  writing_.assign(std::make_move_iterator(first), std::make_move_iterator(first + static_cast<std::ptrdiff_t>(take)));
  queueHead_ += take;
  if (queueHead_ == queue_.size()) {
    queue_.clear();
    queueHead_ = 0;
  } else if (queueHead_ >= queue_.size() / 2) {
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(queueHead_));
    queueHead_ = 0;
  }
}

// asio::async_write splits a buffer sequence into writev calls of at most 16 iovecs; writing
// with async_write_some directly sends up to 64 (a 32-message pull answer is one syscall).
asio::awaitable<asio::error_code> TcpConnection::writeGathered() {
  size_t first = 0;
  while (first < gather_.size()) {
    size_t count = std::min(kMaxIovecs, gather_.size() - first);
    auto [ec, n] = co_await socket_.async_write_some(std::span<const asio::const_buffer>(&gather_[first], count),
                                                     as_tuple(use_awaitable));
    if (ec) co_return ec;
    writeSince_ = Clock::now();  // progress: the stall deadline counts from here
    while (n > 0 && first < gather_.size()) {  // skip what went out, trim a partly written buffer
      size_t size = gather_[first].size();
      if (n < size) {
        gather_[first] += n;
        n = 0;
      } else {
        n -= size;
        ++first;
      }
    }
    while (first < gather_.size() && gather_[first].size() == 0) ++first;
  }
  co_return asio::error_code{};
}

// TLS: OpenSSL encrypts one buffer per SSL_write into records of its own and sends each at once,
// so the small pieces of the gather list (frame prefixes, small bodies) are packed into one
// record-sized staging buffer first: 64 queued small frames make one record and one send, not 64
// of each. A piece of half a record or more is encrypted straight from its own memory.
asio::awaitable<asio::error_code> TcpConnection::writeGatheredTls() {
  size_t i = 0;
  while (i < gather_.size()) {
    if (gather_[i].size() >= kTlsRecord / 2) {
      auto piece = gather_[i++];
      auto ec = co_await writeTls(static_cast<const char*>(piece.data()), piece.size());
      if (ec) co_return ec;
      continue;
    }
    if (!tlsStage_) tlsStage_.reset(new char[kTlsRecord]);
    size_t staged = 0;
    while (i < gather_.size() && staged < kTlsRecord && gather_[i].size() < kTlsRecord / 2) {
      auto& piece = gather_[i];
      size_t take = std::min(piece.size(), kTlsRecord - staged);
      std::memcpy(tlsStage_.get() + staged, piece.data(), take);
      staged += take;
      piece += take;
      if (piece.size() == 0) ++i;
    }
    auto ec = co_await writeTls(tlsStage_.get(), staged);
    if (ec) co_return ec;
  }
  co_return asio::error_code{};
}

// Until all of `data` is sent. A write OpenSSL could not finish is retried with the same bytes
// (SSL_write's rule) once the socket takes more.
asio::awaitable<asio::error_code> TcpConnection::writeTls(const char* data, size_t size) {
  auto ec = co_await writeAllTls(socket_, *tls_, data, size, &writeSince_);  // progress: the stall clock
  co_return ec;
}

// ---- receiving ------------------------------------------------------------------------------
// Reads are non-blocking read_some calls after the socket reported readable: into a per-thread
// scratch buffer (frames are decoded straight out of it), or, for the rest of a big frame, straight
// into that frame's own buffer. Only the bytes of an incomplete frame stay with the connection, so
// an idle connection or a parked long poll holds no read buffer at all.


bool TcpConnection::outputPaused() const {
  const size_t maxBytes = options_->maxPendingWriteBytes();
  return maxBytes > 0 && outBytes_ > maxBytes;
}

bool TcpConnection::requestsPaused() const {
  const size_t maxRequests = options_->maxInFlightRequests();
  return maxRequests > 0 && inFlight_ >= maxRequests;
}

// The next request could be neither handed on nor held (nor answered: holdBlocked_).
bool TcpConnection::holdFull() const {
  if (heldHead_ == held_.size() && !requestsPaused()) return false;
  return !hooks_->answerHeld || holdBlocked_;
}

bool TcpConnection::readPaused() const { return outputPaused() || holdFull(); }

void TcpConnection::resumeReading() {
  if (!readerWaiting_) return;
  // Hysteresis: resume once the output is down to half the bound, not at the first byte written.
  const size_t maxBytes = options_->maxPendingWriteBytes();
  bool outputOk = maxBytes == 0 || outBytes_ <= maxBytes / 2;
  if (outputOk && !holdFull() && readResume_) readResume_->cancel();
}

// ---- the hold: requests read at the in-flight limit (ConnectionHooks::answerHeld) -------------
// Reading goes on at the limit, so that a request's wait is seen from its read on (receivedAt)
// instead of passing unseen in the socket: the hook answers one held too long (the broker: busy
// after its budget) and the others are handed on in read order as running requests end.

void TcpConnection::hold(RemotingCommand cmd, size_t frameSize) {
  const size_t bytes = frameSize + kHeldOverhead;
  heldBytes_ += bytes;
  held_.push_back(HeldRequest{std::move(cmd), bytes});
  if (heldWatching_) return;
  heldWatching_ = true;
  asio::co_spawn(socket_.get_executor(), heldWatch(self()), asio::detached);
}

// Java's executor queue full ([OVERLOAD]): the hook answers a request with a budget at once; one
// it does not answer is held beyond the bound (by that one frame) and reading stops until there is room.
bool TcpConnection::answerOverflow(const RemotingCommand& cmd) {
  auto answer = hooks_->answerHeld(cmd, Clock::now(), static_cast<int64_t>(held_.size() - heldHead_), true);
  if (!answer) {
    holdBlocked_ = true;
    return false;
  }
  sendResponse(cmd, std::move(*answer));
  return true;
}

void TcpConnection::compactHeld() {
  if (heldBytes_ < kMaxHeldBytes) holdBlocked_ = false;
  if (heldHead_ == held_.size()) {
    held_.clear();
    heldHead_ = 0;
    if (held_.capacity() > 64) std::vector<HeldRequest>().swap(held_);  // a flood's array is not kept
  } else if (heldHead_ >= held_.size() / 2) {
    held_.erase(held_.begin(), held_.begin() + static_cast<std::ptrdiff_t>(heldHead_));
    heldHead_ = 0;
  }
}

void TcpConnection::releaseHeld() {
  if (releasingHeld_) return;  // onFrame -> a request failing at once -> finishRequest -> here
  releasingHeld_ = true;
  while (heldHead_ < held_.size() && !requestsPaused() && isOpen()) {
    auto& next = held_[heldHead_++];
    heldBytes_ -= next.bytes;
    onFrame(std::move(next.cmd));
  }
  compactHeld();
  releasingHeld_ = false;
}

void TcpConnection::answerHeldTooLong() {
  const auto now = Clock::now();
  auto others = static_cast<int64_t>(held_.size() - heldHead_);
  size_t kept = heldHead_;
  for (size_t i = heldHead_; i < held_.size(); ++i) {
    auto answer = hooks_->answerHeld(held_[i].cmd, now, --others, false);
    if (answer) {
      heldBytes_ -= held_[i].bytes;
      sendResponse(held_[i].cmd, std::move(*answer));
      continue;
    }
    ++others;  // still held: counted for the next one
    if (kept != i) held_[kept] = std::move(held_[i]);
    ++kept;
  }
  held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(kept), held_.end());
  compactHeld();
  resumeReading();
}

asio::awaitable<void> TcpConnection::heldWatch(std::shared_ptr<TcpConnection> self) {
  asio::steady_timer tick(socket_.get_executor());
  while (isOpen() && heldHead_ < held_.size()) {
    tick.expires_after(kHeldPoll);
    co_await tick.async_wait(as_tuple(use_awaitable));
    if (isOpen()) answerHeldTooLong();
  }
  heldWatching_ = false;
}

bool TcpConnection::checkLength(uint32_t total) {
  const size_t max = options_->maxFrameSize();
  if (total >= 4 && size_t(total) + 4 <= max) return true;
  closeNow("bad frame length " + std::to_string(static_cast<int32_t>(total)) + " (max " + std::to_string(max) + ")",
           true);
  return false;
}

bool TcpConnection::dispatchFrame(const char* frame, size_t size) {
  auto cmd = decodeFrame(std::string_view(frame, size));
  if (!cmd) {
    closeNow("malformed frame: " + cmd.error().message, true);
    return false;
  }
  cmd->receivedAt = readAt_;  // frames held back by backpressure keep the time they were read
  if (!cmd->isResponse() && mustHold()) {
    if (heldBytes_ >= kMaxHeldBytes && answerOverflow(*cmd)) return isOpen();
    hold(std::move(cmd.value()), size);
    return true;
  }
  onFrame(std::move(cmd.value()));
  return isOpen();
}

// Appends fresh bytes to the incomplete frame; decodes it once whole. Advances data/size.
bool TcpConnection::completePartial(const char*& data, size_t& size) {
  if (partialCap_ == 4) {  // the length prefix itself was cut
    size_t take = std::min(size_t(4) - partialLen_, size);
    std::memcpy(partial_.get() + partialLen_, data, take);
    partialLen_ += take;
    data += take;
    size -= take;
    if (partialLen_ < 4) return true;
    uint32_t total = loadBE32(partial_.get());
    if (!checkLength(total)) return false;
    std::unique_ptr<char[]> whole(new char[4 + size_t(total)]);
    std::memcpy(whole.get(), partial_.get(), 4);
    partial_ = std::move(whole);
    partialCap_ = 4 + size_t(total);
  }
  size_t take = std::min(partialCap_ - partialLen_, size);
  if (take > 0) std::memcpy(partial_.get() + partialLen_, data, take);
  partialLen_ += take;
  data += take;
  size -= take;
  if (partialLen_ < partialCap_) return true;
  auto frame = std::move(partial_);
  size_t frameSize = partialCap_ - 4;
  partialLen_ = partialCap_ = 0;
  return dispatchFrame(frame.get() + 4, frameSize);
}

bool TcpConnection::consume(const char* data, size_t size) {
  if (partial_ && !completePartial(data, size)) return false;
  while (size >= 4) {
    if (readPaused()) {  // backpressure: the rest waits until the pressure is gone
      backlog_.assign(data, size);
      return true;
    }
    uint32_t total = loadBE32(data);
    if (!checkLength(total)) return false;
    if (size < 4 + size_t(total)) break;
    if (!dispatchFrame(data + 4, total)) return false;
    data += 4 + size_t(total);
    size -= 4 + size_t(total);
  }
  if (size == 0) return true;
  // Keep the start of the next frame, in a buffer of its full size once its length is known.
  partialCap_ = size < 4 ? 4 : 4 + size_t(loadBE32(data));
  partial_.reset(new char[partialCap_]);
  std::memcpy(partial_.get(), data, size);
  partialLen_ = size;
  frameStart_ = Clock::now();
  return true;
}

TcpConnection::ReadStatus TcpConnection::readSocket(char* into, size_t room, size_t& n, std::string& endReason,
                                                    bool& endProblem) {
  auto r = readNonBlocking(socket_, tls_.get(), into, room);
  n = r.bytes;
  switch (r.outcome) {
    case ReadOutcome::More: return ReadStatus::More;
    case ReadOutcome::Drained: return ReadStatus::Drained;
    case ReadOutcome::WantWrite: return ReadStatus::WantWrite;
    case ReadOutcome::Closed: break;
  }
  endReason = std::move(r.why);
  endProblem = r.problem && isOpen();
  return ReadStatus::Closed;
}

TcpConnection::ReadStatus TcpConnection::readAvailable() {
  // The rest of a big frame goes straight into its buffer; anything else through the scratch.
  bool direct = partial_ && partialCap_ > 4 && partialCap_ - partialLen_ >= kScratchSize / 2;
  char* into = direct ? partial_.get() + partialLen_ : scratchBuffer();
  size_t room = direct ? partialCap_ - partialLen_ : kScratchSize;
  size_t n = 0;
  std::string endReason;
  bool endProblem = false;
  auto next = readSocket(into, room, n, endReason, endProblem);
  if (n > 0) {
    lastActivity_ = readAt_ = Clock::now();
    if (direct) {
      partialLen_ += n;
      if (partialLen_ == partialCap_) {
        const char* none = nullptr;
        size_t zero = 0;
        if (!completePartial(none, zero)) return ReadStatus::Closed;
      }
    } else if (!consume(into, n)) {
      return ReadStatus::Closed;
    }
  }
  if (next == ReadStatus::Closed) {
    closeNow(endReason, endProblem);
    return ReadStatus::Closed;
  }
  return isOpen() ? next : ReadStatus::Closed;
}

void TcpConnection::startReading() {
  asio::error_code nbec;
  socket_.non_blocking(true, nbec);
  // The limits in time: the thread's watchdog (none if every timeout is 0 now: not started later).
  if (isOpen() && (options_->idleTimeout().count() > 0 || options_->partialFrameTimeout().count() > 0 ||
                   options_->writeStallTimeout().count() > 0))
    ConnectionWatchdog::of(socket_.get_executor()).watch(*this, socket_.get_executor());
  readStep();
}

void TcpConnection::readStep() {
  try {
    while (isOpen()) {
      if (readPaused()) {  // backpressure: leave the requests in the socket until output drains
        waitResume();
        return;
      }
      switch (readAvailable()) {
        case ReadStatus::Closed: return;
        case ReadStatus::WantWrite:  // TLS: a record must go out before more can be read
          waitSocket(asio::socket_base::wait_write);
          return;
        case ReadStatus::More:  // more is waiting: let the thread's other work run first
          asio::post(socket_.get_executor(), [self = self()] { self->readStep(); });
          return;
        case ReadStatus::Drained:
          if (readPaused()) continue;  // paused mid-buffer: wait for the pressure to go, not for bytes
          // A short read returns everything the socket held, so any later byte raises a new
          // readiness edge for this wait (everything here runs on the connection's one thread).
          waitSocket(asio::socket_base::wait_read);
          return;
      }
    }
  } catch (const std::exception& e) {  // out of memory: this connection ends, not the io thread
    closeNow(std::string("read failed: ") + e.what(), true);
  }
}

void TcpConnection::waitSocket(asio::socket_base::wait_type what) {
  socket_.async_wait(what, [self = self(), what](const asio::error_code& ec) {
    if (!ec) {
      self->readStep();
    } else if (self->isOpen()) {
      self->closeNow((what == asio::socket_base::wait_write ? "write failed: " : "read failed: ") + ec.message(), true);
    }
  });
}

void TcpConnection::waitResume() {
  readerWaiting_ = true;
  if (!readResume_) readResume_ = std::make_unique<asio::steady_timer>(socket_.get_executor());
  readResume_->expires_at(Clock::time_point::max());
  readResume_->async_wait([self = self()](const asio::error_code&) { self->onResumed(); });
}

void TcpConnection::onResumed() {
  readerWaiting_ = false;
  if (!isOpen()) return;
  if (partial_) frameStart_ = Clock::now();  // not the peer's delay
  if (!backlog_.empty()) {  // frames read before the pause come first
    std::string held = std::move(backlog_);
    backlog_.clear();
    if (!consume(held.data(), held.size())) return;
  }
  readStep();
}

std::optional<TcpConnection::Overdue> TcpConnection::overdue(Clock::time_point now) const {
  const ConnectionOptions o = options_->load();  // the limits in force now (they may change)
  if (partial_ && !readerWaiting_ && o.partialFrameTimeout.count() > 0 && now >= frameStart_ + o.partialFrameTimeout)
    return Overdue{"incomplete frame: " + std::to_string(partialLen_) + " of " +
                       (partialCap_ > 4 ? std::to_string(partialCap_) : std::string("?")) + " bytes after " +
                       std::to_string(o.partialFrameTimeout.count()) + "s",
                   true};
  if (writeBusy_ && o.writeStallTimeout.count() > 0 && now >= writeSince_ + o.writeStallTimeout)
    return Overdue{"peer not reading: no write progress for " + std::to_string(o.writeStallTimeout.count()) + "s, " +
                       std::to_string(outBytes_) + " bytes pending",
                   true};
  if (o.idleTimeout.count() > 0 && now >= lastActivity_ + o.idleTimeout)
    return Overdue{"idle timeout", false};
  return std::nullopt;
}

void TcpConnection::closeIfOverdue(Clock::time_point now) {
  auto why = overdue(now);
  if (!why || !isOpen()) return;
  if (!why->problem) log::info("remoting: closing connection {}: idle for {}s", remote_, options_->idleTimeout().count());
  closeNow(why->reason, why->problem);
}

}  // namespace rmq::net
