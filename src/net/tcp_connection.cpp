#include "net/tcp_connection.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/dispatch.hpp>
#include <asio/write.hpp>
#include <cstring>
#include <span>

#include "common/bytes.h"
#include "common/log.h"
#include "common/response_code.h"
#include "net/frame_codec.h"

namespace rmq::net {
namespace {

using asio::experimental::as_tuple;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

constexpr size_t kReadBufferSize = 64 * 1024;
constexpr size_t kShrinkAbove = 1024 * 1024;    // a buffer grown for one big frame is given back
constexpr size_t kMaxFramesPerWrite = 64;       // coalescing bound per gathered write
constexpr size_t kMaxIovecs = 64;               // asio passes at most 64 buffers to one sendmsg

std::atomic<uint64_t> g_nextConnectionId{1};

std::string endpointText(const asio::ip::tcp::endpoint& ep) {
  return ep.address().to_string() + ":" + std::to_string(ep.port());
}

}  // namespace

std::shared_ptr<TcpConnection> TcpConnection::make(asio::ip::tcp::socket socket, ConnectionOptions options,
                                                   ConnectionHooks hooks) {
  return std::make_shared<TcpConnection>(std::move(socket), options, std::move(hooks));
}

TcpConnection::TcpConnection(asio::ip::tcp::socket socket, ConnectionOptions options, ConnectionHooks hooks)
    : socket_(std::move(socket)),
      options_(options),
      hooks_(std::move(hooks)),
      id_(g_nextConnectionId.fetch_add(1)),
      writeSignal_(socket_.get_executor()),
      idleTimer_(socket_.get_executor()),
      lastActivity_(Clock::now()) {
  asio::error_code ec;
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  auto remote = socket_.remote_endpoint(ec);
  remote_ = ec ? "unknown" : endpointText(remote);
  auto local = socket_.local_endpoint(ec);
  local_ = ec ? "unknown" : endpointText(local);
}

TcpConnection::~TcpConnection() = default;

void TcpConnection::start() {
  auto ex = socket_.get_executor();
  asio::co_spawn(ex, readLoop(self()), asio::detached);
  asio::co_spawn(ex, writeLoop(self()), asio::detached);
  if (options_.idleTimeout.count() > 0) asio::co_spawn(ex, idleWatch(self()), asio::detached);
}

template <class F>
void TcpConnection::runOnConnection(F&& f) {
  asio::dispatch(socket_.get_executor(), std::forward<F>(f));  // inline when already there
}

void TcpConnection::close() {
  runOnConnection([self = self()] { self->closeNow("closed locally", false); });
}

void TcpConnection::closeWhenFlushed() {
  runOnConnection([self = self()] {
    self->closeWhenFlushed_ = true;
    self->writeSignal_.cancel();
  });
}

void TcpConnection::closeNow(std::string_view reason, bool problem) {
  if (!open_.exchange(false, std::memory_order_acq_rel)) return;
  if (problem) log::warn("remoting: closing connection {} (local {}): {}", remote_, local_, reason);
  else log::debug("remoting: connection {} closed: {}", remote_, reason);
  asio::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);
  writeSignal_.cancel();
  idleTimer_.cancel();
  queue_.clear();  // `writing_` stays until the cancelled write completes
  failPending();
  if (hooks_.onClosed) hooks_.onClosed(shared_from_this());
}

void TcpConnection::failPending() {
  std::unordered_map<int32_t, std::shared_ptr<Waiter>> pending;
  {
    std::lock_guard lk(pendingMu_);
    pending.swap(pending_);
  }
  for (auto& [opaque, w] : pending)
    w->set(makeError(ResponseCode::CLIENT_CONNECTION_CLOSED, "connection " + remote_ + " closed"));
}

// ---- sending --------------------------------------------------------------------------------

void TcpConnection::send(RemotingCommand& cmd) {
  OutFrame f;
  encodeFrameHeader(cmd, f.prefix);
  f.body = std::move(cmd.body);
  f.segments = std::move(cmd.bodySegments);
  f.owner = std::move(cmd.bodyOwner);
  runOnConnection([self = self(), f = std::move(f)]() mutable { self->enqueue(std::move(f)); });
}

void TcpConnection::enqueue(OutFrame frame) {
  if (!isOpen()) return;
  queue_.push_back(std::move(frame));
  writeSignal_.cancel();
}

void TcpConnection::sendOneway(RemotingCommand request) {
  request.flag = (request.flag | kFlagOneway) & ~kFlagResponse;
  send(request);
}

void TcpConnection::sendResponse(const RemotingCommand& request, RemotingCommand response) {
  if (request.isOneway()) return;
  response.opaque = request.opaque;
  response.flag |= kFlagResponse;
  response.serializeType = request.serializeType;
  send(response);
}

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

void TcpConnection::onFrame(RemotingCommand cmd) {
  if (cmd.isResponse()) {
    completeResponse(std::move(cmd));
    return;
  }
  if (hooks_.inFlight) hooks_.inFlight->fetch_add(1, std::memory_order_relaxed);
  asio::co_spawn(socket_.get_executor(), handleRequest(self(), std::move(cmd)), asio::detached);
}

void TcpConnection::completeResponse(RemotingCommand cmd) {
  std::shared_ptr<Waiter> waiter;
  {
    std::lock_guard lk(pendingMu_);
    auto it = pending_.find(cmd.opaque);
    if (it != pending_.end()) {
      waiter = std::move(it->second);
      pending_.erase(it);
    }
  }
  if (waiter) waiter->set(std::move(cmd));
  else log::debug("remoting: response from {} with unknown opaque {} dropped", remote_, cmd.opaque);
}

asio::awaitable<void> TcpConnection::handleRequest(std::shared_ptr<TcpConnection> self, RemotingCommand cmd) {
  const int32_t code = cmd.code, opaque = cmd.opaque;
  const SerializeType type = cmd.serializeType;
  const bool oneway = cmd.isOneway();
  std::optional<RemotingCommand> response;
  try {
    response = co_await hooks_.onRequest(self, std::move(cmd));
  } catch (const std::exception& e) {
    log::warn("remoting: request code {} from {} failed: {}", code, remote_, e.what());
    response = RemotingCommand::response(ResponseCode::SYSTEM_ERROR, std::string(e.what()));
  } catch (...) {
    response = RemotingCommand::response(ResponseCode::SYSTEM_ERROR, std::string("unknown exception"));
  }
  if (response && !oneway) {
    response->opaque = opaque;
    response->flag |= kFlagResponse;
    response->serializeType = type;
    send(*response);
  }
  if (hooks_.inFlight) hooks_.inFlight->fetch_sub(1, std::memory_order_relaxed);
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

// ---- invoke ---------------------------------------------------------------------------------

asio::awaitable<Result<RemotingCommand>> TcpConnection::invoke(RemotingCommand request,
                                                               std::chrono::milliseconds timeout) {
  auto closedError = [this] {
    return makeError(ResponseCode::CLIENT_CONNECTION_CLOSED, "connection " + remote_ + " closed");
  };
  if (!isOpen()) co_return closedError();
  const int32_t opaque = nextOpaque();
  request.opaque = opaque;
  request.flag &= ~(kFlagResponse | kFlagOneway);
  auto waiter = std::make_shared<Waiter>();
  {
    std::lock_guard lk(pendingMu_);
    pending_[opaque] = waiter;
  }
  if (!isOpen()) {  // closed meanwhile: failPending may have missed us
    std::lock_guard lk(pendingMu_);
    pending_.erase(opaque);
    co_return closedError();
  }
  const int32_t code = request.code;
  send(request);
  if (co_await waiter->wait(timeout)) co_return waiter->take();
  {
    std::lock_guard lk(pendingMu_);
    pending_.erase(opaque);
  }
  if (waiter->ready()) co_return waiter->take();  // answered just as the timer fired
  co_return makeError(ResponseCode::CLIENT_TIMEOUT, "wait response on the channel <" + remote_ + "> timeout, " +
                                                        std::to_string(timeout.count()) + "(ms), request code " +
                                                        std::to_string(code));
}

}  // namespace rmq::net
