// TcpConnection's socket loops: the reader (frames out of a reusable buffer), the gathering
// writer and the idle watchdog. All three run on the connection's io_context.
#include <asio/co_spawn.hpp>
#include <cstring>
#include <span>

#include "common/bytes.h"
#include "common/log.h"
#include "net/frame_codec.h"
#include "net/tcp_connection.h"

namespace rmq::net {
namespace {

using asio::experimental::as_tuple;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

constexpr size_t kReadBufferSize = 64 * 1024;
constexpr size_t kShrinkAbove = 1024 * 1024;    // a buffer grown for one big frame is given back
constexpr size_t kMaxFramesPerWrite = 64;       // coalescing bound per gathered write
constexpr size_t kMaxIovecs = 64;               // asio passes at most 64 buffers to one sendmsg

}  // namespace

asio::awaitable<void> TcpConnection::writeLoop(std::shared_ptr<TcpConnection> self) {
  for (;;) {
    if (queue_.empty()) {
      if (!isOpen()) co_return;
      if (closeWhenFlushed_) {
        closeNow("flushed for shutdown", false);
        co_return;
      }
      writeSignal_.expires_at(Clock::time_point::max());
      co_await writeSignal_.async_wait(as_tuple(use_awaitable));
      continue;
    }
    // Coalesce every ready frame (bounded) into one gather write: prefix, body, segments.
    writing_.clear();
    gather_.clear();
    while (!queue_.empty() && writing_.size() < kMaxFramesPerWrite) {
      writing_.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    for (auto& f : writing_) {
      gather_.emplace_back(f.prefix.data(), f.prefix.size());
      if (!f.body.empty()) gather_.emplace_back(f.body.data(), f.body.size());
      for (auto& s : f.segments)
        if (s.size) gather_.emplace_back(s.data, s.size);
    }
    auto ec = co_await writeGathered();
    writing_.clear();
    if (ec) {
      closeNow("write failed: " + ec.message(), isOpen());
      co_return;
    }
    lastActivity_ = Clock::now();
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

// ---- receiving ------------------------------------------------------------------------------

asio::awaitable<void> TcpConnection::readLoop(std::shared_ptr<TcpConnection> self) {
  std::vector<char> buf(kReadBufferSize);
  size_t begin = 0, end = 0;
  while (isOpen()) {
    size_t need = 4;  // bytes wanted at `begin` before the next frame can be decoded
    while (end - begin >= 4) {
      uint32_t total = loadBE32(buf.data() + begin);
      if (total < 4 || size_t(total) + 4 > options_.maxFrameSize) {
        closeNow("bad frame length " + std::to_string(total) + " (max " + std::to_string(options_.maxFrameSize) + ")",
                 true);
        co_return;
      }
      if (end - begin < 4 + size_t(total)) {
        need = 4 + size_t(total);
        break;
      }
      auto cmd = decodeFrame(std::string_view(buf.data() + begin + 4, total));
      begin += 4 + size_t(total);
      if (!cmd) {
        closeNow("malformed frame: " + cmd.error().message, true);
        co_return;
      }
      onFrame(std::move(cmd.value()));
    }
    if (begin == end) {
      begin = end = 0;
      if (buf.size() > kShrinkAbove && need <= kReadBufferSize) buf = std::vector<char>(kReadBufferSize);
    }
    if (buf.size() - begin < need || end == buf.size()) {  // make room: move the partial frame to the front
      std::memmove(buf.data(), buf.data() + begin, end - begin);
      end -= begin;
      begin = 0;
      if (buf.size() < need) buf.resize(need);
    }
    auto [ec, n] = co_await socket_.async_read_some(asio::buffer(buf.data() + end, buf.size() - end),
                                                    as_tuple(use_awaitable));
    if (ec) {
      bool problem = isOpen() && ec != asio::error::eof && ec != asio::error::connection_reset;
      closeNow(ec == asio::error::eof ? "closed by peer" : "read failed: " + ec.message(), problem);
      co_return;
    }
    end += n;
    lastActivity_ = Clock::now();
  }
}

asio::awaitable<void> TcpConnection::idleWatch(std::shared_ptr<TcpConnection> self) {
  while (isOpen()) {
    auto deadline = lastActivity_ + options_.idleTimeout;
    if (Clock::now() >= deadline) {
      log::info("remoting: closing connection {}: idle for {}s", remote_, options_.idleTimeout.count());
      closeNow("idle timeout", false);
      co_return;
    }
    idleTimer_.expires_at(deadline);
    co_await idleTimer_.async_wait(as_tuple(use_awaitable));
  }
}

}  // namespace rmq::net
