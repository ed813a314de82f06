#include "net/tcp_connection.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/dispatch.hpp>
#include <asio/post.hpp>

#include "common/bytes.h"
#include "common/log.h"
#include "common/response_code.h"
#include "net/connection_watchdog.h"
#include "net/frame_codec.h"
#include "net/tls_session.h"

namespace rmq::net {
namespace {

using asio::experimental::as_tuple;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;


std::atomic<uint64_t> g_nextConnectionId{1};

std::string endpointText(const asio::ip::tcp::endpoint& ep) {
  return ep.address().to_string() + ":" + std::to_string(ep.port());
}

}  // namespace

std::shared_ptr<TcpConnection> TcpConnection::make(asio::ip::tcp::socket socket, const ConnectionOptions& options,
                                                   ConnectionHooks hooks, std::unique_ptr<TlsSession> tls) {
  return make(std::move(socket), std::make_shared<const LiveConnectionOptions>(options), std::move(hooks),
              std::move(tls));
}

std::shared_ptr<TcpConnection> TcpConnection::make(asio::ip::tcp::socket socket, LiveConnectionOptionsPtr options,
                                                   ConnectionHooks hooks, std::unique_ptr<TlsSession> tls) {
  return make(std::move(socket), std::move(options), std::make_shared<const ConnectionHooks>(std::move(hooks)),
              std::move(tls));
}

std::shared_ptr<TcpConnection> TcpConnection::make(asio::ip::tcp::socket socket, LiveConnectionOptionsPtr options,
                                                   ConnectionHooksPtr hooks, std::unique_ptr<TlsSession> tls) {
  return std::make_shared<TcpConnection>(std::move(socket), std::move(options), std::move(hooks), std::move(tls));
}

TcpConnection::TcpConnection(asio::ip::tcp::socket socket, LiveConnectionOptionsPtr options, ConnectionHooksPtr hooks,
                             std::unique_ptr<TlsSession> tls)
    : socket_(std::move(socket)),
      tls_(std::move(tls)),
      options_(std::move(options)),
      hooks_(std::move(hooks)),
      id_(g_nextConnectionId.fetch_add(1)),
      lastActivity_(Clock::now()) {
  asio::error_code ec;
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  auto remote = socket_.remote_endpoint(ec);
  remote_ = ec ? "unknown" : endpointText(remote);
  auto local = socket_.local_endpoint(ec);
  local_ = ec ? "unknown" : endpointText(local);
}

TcpConnection::~TcpConnection() {
  if (watchdog_) watchdog_->unwatch(*this);  // only if never closed (an io_context destroyed first forgot it)
}

// The reader starts on the connection's thread (start() may run on another: the accept loop's), after
// start() returned: no handler or close hook runs inside the caller's start().
void TcpConnection::start() {
  asio::post(socket_.get_executor(), [self = self()] { self->startReading(); });  // the writer runs per burst
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
    if (!self->writerRunning_) self->closeNow("flushed for shutdown", false);  // else when its burst ends
  });
}

void TcpConnection::closeNow(std::string_view reason, bool problem) {
  if (!open_.exchange(false, std::memory_order_acq_rel)) return;
  if (problem) log::warn("remoting: closing connection {} (local {}): {}", remote_, local_, reason);
  else log::debug("remoting: connection {} closed: {}", remote_, reason);
  if (tls_) tls_->shutdown();  // close_notify, if the socket takes it now
  asio::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.close(ec);  // a writer in a burst fails its write and ends
  if (readResume_) readResume_->cancel();
  if (watchdog_) watchdog_->unwatch(*this);
  std::vector<OutFrame>().swap(queue_);  // `writing_` stays until the cancelled write completes
  queueHead_ = 0;
  partial_.reset();
  std::string().swap(backlog_);
  std::vector<HeldRequest>().swap(held_);  // never handed on: nothing was answered for them
  heldHead_ = heldBytes_ = 0;
  holdBlocked_ = false;
  partialLen_ = partialCap_ = 0;
  failPending();
  if (hooks_->onClosed) hooks_->onClosed(shared_from_this());
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

size_t TcpConnection::frameBytes(const OutFrame& f) {
  size_t n = f.prefix.size() + f.body.size();
  for (auto& s : f.segments) n += s.size;
  return n;
}

void TcpConnection::enqueue(OutFrame frame) {
  if (!isOpen()) return;
  outBytes_ += frameBytes(frame);
  queue_.push_back(std::move(frame));
  if (!writerRunning_) {  // no writer coroutine while nothing is to be written
    writerRunning_ = true;
    asio::co_spawn(socket_.get_executor(), writeBurst(self()), asio::detached);
  }
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

// ---- receiving (the read loop itself is in tcp_connection_io.cpp) -----------------------------

void TcpConnection::onFrame(RemotingCommand cmd) {
  if (cmd.isResponse()) {
    completeResponse(std::move(cmd));
    return;
  }
  if (hooks_->inFlight) hooks_->inFlight->fetch_add(1, std::memory_order_relaxed);
  ++inFlight_;
  RequestInfo info{cmd.code, cmd.opaque, cmd.serializeType, cmd.isOneway()};
  if (hooks_->onAnswered) info.start = Clock::now();  // a handler may do its work when called
  RequestInfo* const outer = handing_;  // a handler's answer may hand on a held request (re-entry)
  handing_ = &info;
  std::optional<HandlerWork> work;
  std::optional<std::string> failure;
  try {
    work.emplace(hooks_->onRequest(self(), std::move(cmd)));  // may answer at once; suspends only if it waits
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  const bool later = handing_ == nullptr;  // answerLater() took it: its LaterAnswer ends it, thrown or not
  handing_ = outer;
  if (later) return;  // `work` is dropped unstarted
  if (failure) {
    finishRequest(info, std::nullopt, failure);
    return;
  }
  asio::co_spawn(socket_.get_executor(), handleRequest(self(), info, std::move(*work)), asio::detached);
}

LaterAnswer TcpConnection::answerLater(const RemotingCommand& request) {
  if (handing_ == nullptr || handing_->opaque != request.opaque || handing_->code != request.code) return {};
  LaterAnswer answer(self(), *handing_);
  handing_ = nullptr;
  return answer;
}

void TcpConnection::finishLater(const RequestInfo& info, std::optional<RemotingCommand> response) {
  finishRequest(info, std::move(response), std::nullopt);
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

asio::awaitable<void> TcpConnection::handleRequest(std::shared_ptr<TcpConnection> self, RequestInfo info,
                                                  HandlerWork work) {
  std::optional<RemotingCommand> response;
  std::optional<std::string> failure;
  try {
    response = co_await std::move(work);
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  finishRequest(info, std::move(response), failure);
}

void TcpConnection::finishRequest(const RequestInfo& info, std::optional<RemotingCommand> response,
                                  const std::optional<std::string>& failure) {
  if (failure) {
    log::warn("remoting: request code {} from {} failed: {}", info.code, remote_, *failure);
    response = RemotingCommand::response(ResponseCode::SYSTEM_ERROR, *failure);
  } else if (hooks_->onAnswered) {
    hooks_->onAnswered(info.code, Clock::now() - info.start);
  }
  if (response && !info.oneway) {
    response->opaque = info.opaque;
    response->flag |= kFlagResponse;
    response->serializeType = info.type;
    send(*response);
  }
  if (hooks_->inFlight) hooks_->inFlight->fetch_sub(1, std::memory_order_relaxed);
  runOnConnection([this, self = self()] {  // inline: handlers resume on the connection's executor
    --inFlight_;
    releaseHeld();
    resumeReading();
  });
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
