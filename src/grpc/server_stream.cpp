#include "grpc/server_stream.h"

#include <asio/post.hpp>

#include "grpc/h2_settings.h"
#include "grpc/server_connection.h"

namespace rmq::grpc {
namespace {

constexpr std::string_view kAcceptEncoding = "identity,deflate,gzip";

}  // namespace

ServerStream::ServerStream(std::shared_ptr<ServerConnection> conn, int32_t id)
    : conn_(std::move(conn)), id_(id), startedAt_(Clock::now()) {}

ServerStream::~ServerStream() = default;

std::string_view ServerStream::metadata(std::string_view name) const {
  for (auto& [k, v] : headers_)
    if (k == name) return v;
  return {};
}

const std::string& ServerStream::peerAddress() const { return conn_->peer(); }
const std::string& ServerStream::localAddress() const { return conn_->local(); }
uint64_t ServerStream::connectionId() const { return conn_->id(); }
bool ServerStream::isTls() const { return conn_->isTls(); }
asio::any_io_executor ServerStream::executor() const { return conn_->executor(); }

template <class F>
void ServerStream::onLink(F&& f) {
  if (conn_->onLinkThread()) {
    f();
    return;
  }
  asio::post(conn_->executor(), [self = shared_from_this(), f = std::forward<F>(f)]() mutable { f(); });
}

// ---- the handler's side -----------------------------------------------------------------------

asio::awaitable<std::optional<std::string>> ServerStream::read() {
  if (!inbox_) co_return std::nullopt;
  auto self = shared_from_this();  // the stream outlives a connection that closes meanwhile
  auto message = co_await inbox_->next(*conn_, id_);
  co_return message;
}

bool ServerStream::write(std::string message) {
  if (done()) return false;
  onLink([this, m = std::move(message)]() mutable { doWrite(std::move(m)); });
  return true;
}

void ServerStream::finish(Status status) {
  onLink([this, s = std::move(status)]() mutable { doFinish(std::move(s)); });
}

void ServerStream::setCancelHandler(std::function<void()> onCancel) {
  onLink([this, f = std::move(onCancel)]() mutable {
    if (cancelled_) asio::post(conn_->executor(), std::move(f));
    else onCancel_ = std::move(f);
  });
}

void ServerStream::doWrite(std::string message) {
  if (finished_ || ended_ || closed_) return;
  conn_->queued(outbox_.append(message));
  if (!headersSent_) {
    submitHeaders();
  } else if (outbox_.deferred) {
    outbox_.deferred = false;
    nghttp2_session_resume_data(conn_->session(), id_);
  }
  conn_->flush();
}

void ServerStream::doFinish(Status status) {
  if (finished_) return;
  finished_ = true;
  if (!ended_ && !closed_) queueEnd(std::move(status));
  markDone(false);
}

// ---- sending ------------------------------------------------------------------------------------

void ServerStream::submitHeaders() {
  nghttp2_nv nv[] = {headerField(":status", "200"), headerField("content-type", "application/grpc"),
                     headerField("grpc-accept-encoding", kAcceptEncoding)};
  nghttp2_data_provider body{};
  body.source.ptr = this;
  body.read_callback = &ServerStream::readBody;
  nghttp2_submit_response(conn_->session(), id_, nv, std::size(nv), &body);
  headersSent_ = true;
}

void ServerStream::submitTrailersOnly(int httpStatus, const Status& status) {
  auto code = std::to_string(static_cast<int>(status.code)), http = std::to_string(httpStatus);
  auto message = percentEncode(status.message);
  nghttp2_nv nv[] = {headerField(":status", http), headerField("content-type", "application/grpc"),
                     headerField("grpc-accept-encoding", kAcceptEncoding), headerField("grpc-status", code),
                     headerField("grpc-message", message)};
  nghttp2_submit_response(conn_->session(), id_, nv, std::size(nv) - (message.empty() ? 1 : 0), nullptr);
  headersSent_ = true;
}

// Trailers after the queued messages, or a Trailers-Only answer when nothing was written.
void ServerStream::queueEnd(Status status) {
  ended_ = true;
  status_ = std::move(status);
  if (!headersSent_) {
    submitTrailersOnly(200, status_);
  } else {
    outbox_.last = true;
    if (outbox_.deferred) {
      outbox_.deferred = false;
      nghttp2_session_resume_data(conn_->session(), id_);
    }
  }
  conn_->flush();
}

ssize_t ServerStream::readBody(nghttp2_session* session, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                               nghttp2_data_source* source, void*) {
  auto* self = static_cast<ServerStream*>(source->ptr);
  bool drained = false;
  size_t n = self->outbox_.take(buf, length, drained);
  self->conn_->dequeued(n);
  if (!drained) return static_cast<ssize_t>(n);
  if (self->outbox_.last) {
    *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
    auto code = std::to_string(static_cast<int>(self->status_.code));
    auto message = percentEncode(self->status_.message);
    nghttp2_nv nv[] = {headerField("grpc-status", code), headerField("grpc-message", message)};
    nghttp2_submit_trailer(session, self->id_, nv, std::size(nv) - (message.empty() ? 1 : 0));
    return static_cast<ssize_t>(n);
  }
  if (n > 0) return static_cast<ssize_t>(n);
  self->outbox_.deferred = true;
  return NGHTTP2_ERR_DEFERRED;
}

// ---- the connection's side ----------------------------------------------------------------------

void ServerStream::addHeader(std::string_view name, std::string_view value) {
  if (name == ":path") path_ = value;
  headers_.emplace_back(name, value);
}

void ServerStream::accept(Clock::duration timeout, bool hasTimeout) {
  auto& shared = conn_->shared();
  counted_ = true;
  shared.openCalls.fetch_add(1);
  inbox_ = std::make_unique<Inbox>(shared.options.maxInboundMessageSize, std::string(metadata("grpc-encoding")));
  if (remoteEnded_) inbox_->end();
  // The headers are complete: give back the vector's growth room (~300 B a call: a parked
  // ReceiveMessage keeps its stream for up to 20 s).
  headers_.shrink_to_fit();
  if (!hasTimeout) return;
  deadline_ = startedAt_ + timeout;
  deadlineTimer_ = std::make_unique<asio::steady_timer>(conn_->executor(), deadline_);
  // A plain completion handler, not a coroutine: ~700 B less per call with a deadline (spawned
  // awaitable thread, frame, awaitable handler).
  deadlineTimer_->async_wait([self = shared_from_this()](const std::error_code& ec) {
    if (ec || self->done()) return;
    self->endWith(Status{StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"}, true);
  });
}

void ServerStream::rejectWith(int httpStatus, Status status) {
  finished_ = ended_ = true;
  status_ = std::move(status);
  submitTrailersOnly(httpStatus, status_);
  done_.store(true, std::memory_order_release);
  conn_->flush();
}

void ServerStream::endWith(Status status, bool cancel) {
  if (!ended_ && !closed_) queueEnd(std::move(status));
  markDone(cancel);
}

void ServerStream::markDone(bool cancelled) {
  done_.store(true, std::memory_order_release);
  if (counted_) {
    counted_ = false;
    conn_->shared().openCalls.fetch_sub(1);
  }
  if (inbox_) inbox_->end();
  if (deadlineTimer_) deadlineTimer_->cancel();
  if (!cancelled || cancelled_) return;
  cancelled_ = true;
  if (onCancel_) asio::post(conn_->executor(), std::move(onCancel_));  // never inside nghttp2's callbacks
  onCancel_ = nullptr;
}

void ServerStream::onData(const uint8_t* data, size_t size) {
  if (!inbox_ || ended_ || closed_) {  // nobody reads it: give the credit back at once
    nghttp2_session_consume_stream(conn_->session(), id_, size);
    return;
  }
  size_t consumeNow = 0;
  auto bad = inbox_->feed(reinterpret_cast<const char*>(data), size, consumeNow);
  if (consumeNow > 0) nghttp2_session_consume_stream(conn_->session(), id_, consumeNow);
  if (bad) endWith(std::move(*bad), true);
}

void ServerStream::onRemoteEnd() {
  remoteEnded_ = true;
  if (inbox_) inbox_->end();
}

// gRPC servers end a stream the client still sends on with RST_STREAM(NO_ERROR) after the trailers.
void ServerStream::onLocalEnd() {
  if (remoteEnded_ || closed_) return;
  nghttp2_submit_rst_stream(conn_->session(), NGHTTP2_FLAG_NONE, id_, NGHTTP2_NO_ERROR);
  conn_->flush();
}

void ServerStream::onClose(uint32_t errorCode) {
  if (closed_) return;
  bool clean = ended_;
  closed_ = true;
  markDone(!finished_);
  auto& shared = conn_->shared();
  if (shared.observer && !path_.empty())
    shared.observer(path_, clean ? status_.code : StatusCode::CANCELLED,
                    std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - startedAt_));
}

}  // namespace rmq::grpc
