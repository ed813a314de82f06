#include "grpc/grpc_channel.h"

#include <nghttp2/nghttp2.h>

#include <asio/co_spawn.hpp>
#include <asio/connect.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <unordered_map>

#include "common/log.h"
#include "common/response_code.h"
#include "grpc/h2_link.h"
#include "grpc/h2_settings.h"
#include "grpc/stream_buffers.h"
#include "net/tls_handshake.h"

namespace rmq::grpc {
namespace {

using asio::experimental::as_tuple;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

// gRPC's mapping of an HTTP status without grpc-status (PROTOCOL-HTTP2.md / http-grpc-status-mapping.md).
StatusCode fromHttpStatus(int http) {
  switch (http) {
    case 400: return StatusCode::INTERNAL;
    case 401: return StatusCode::UNAUTHENTICATED;
    case 403: return StatusCode::PERMISSION_DENIED;
    case 404: return StatusCode::UNIMPLEMENTED;
    case 429: case 502: case 503: case 504: return StatusCode::UNAVAILABLE;
    default: return StatusCode::UNKNOWN;
  }
}

}  // namespace

struct ClientCall::State {
  State(std::shared_ptr<ClientLink> l, size_t maxMessage) : link(std::move(l)), inbox(maxMessage, "") {}
  std::shared_ptr<ClientLink> link;
  int32_t id = -1;
  Inbox inbox;
  Outbox outbox;
  bool gzip = false;
  int httpStatus = 0;
  std::optional<Status> grpcStatus;  // from the response's headers or trailers
  std::optional<Status> localEnd;    // cancel / deadline / a response we could not take
  Metadata metadata;
  bool closed = false;
  Status final;
  std::unique_ptr<asio::steady_timer> finishWaiter, deadlineTimer;

  void end(Status status);  // ends the call from this side: RST_STREAM(CANCEL)
  void onClose(uint32_t errorCode, const char* why);
  static ssize_t readBody(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                          nghttp2_data_source* source, void*);
};

class ClientLink final : public H2Link {
 public:
  ClientLink(asio::ip::tcp::socket socket, std::unique_ptr<net::TlsSession> tls, ChannelOptions options)
      : H2Link(std::move(socket), std::move(tls), "grpc client", 0), options_(std::move(options)) {}

  bool start() {
    static nghttp2_session_callbacks* callbacks = makeCallbacks();
    auto o = sessionOptions();
    if (nghttp2_session_client_new3(&session_, callbacks, static_cast<H2Link*>(this), o.get(), memory_.mem()) != 0) return false;
    if (submitSettings(session_, 0) != 0) return false;
    authority_ = peer();
    startIo();
    return true;
  }

  std::shared_ptr<ClientCall::State> startCall(std::string path, Metadata metadata, std::chrono::milliseconds timeout) {
    auto self = std::static_pointer_cast<ClientLink>(shared_from_this());
    auto s = std::make_shared<ClientCall::State>(self, options_.maxInboundMessageSize);
    s->gzip = options_.gzipRequests;
    if (!isOpen()) {
      s->closed = true;
      s->final = Status{StatusCode::UNAVAILABLE, "connection closed"};
      s->inbox.end();
      return s;
    }
    std::string timeoutText = timeout.count() > 0 ? formatTimeout(timeout) : "";
    std::vector<nghttp2_nv> h = {headerField(":method", "POST"), headerField(":scheme", isTls() ? "https" : "http"),
                                 headerField(":path", path), headerField(":authority", authority_),
                                 headerField("content-type", "application/grpc"), headerField("te", "trailers"),
                                 headerField("user-agent", "rmqnode-grpc/" RMQ_VERSION)};
    if (!timeoutText.empty()) h.push_back(headerField("grpc-timeout", timeoutText));
    if (s->gzip) h.push_back(headerField("grpc-encoding", "gzip"));
    h.push_back(headerField("grpc-accept-encoding", "identity,deflate,gzip"));
    for (auto& [k, v] : metadata) h.push_back(headerField(k, v));
    nghttp2_data_provider body{};
    body.source.ptr = s.get();
    body.read_callback = &ClientCall::State::readBody;
    s->id = nghttp2_submit_request(session_, nullptr, h.data(), h.size(), &body, s.get());
    if (s->id < 0) {
      s->closed = true;
      s->final = Status{StatusCode::INTERNAL, std::string("cannot start a stream: ") + nghttp2_strerror(s->id)};
      s->inbox.end();
      return s;
    }
    calls_.emplace(s->id, s);
    if (timeout.count() > 0) {
      s->deadlineTimer = std::make_unique<asio::steady_timer>(executor(), timeout);
      asio::co_spawn(executor(), watchDeadline(s), asio::detached);
    }
    flush();
    return s;
  }

 private:
  static asio::awaitable<void> watchDeadline(std::shared_ptr<ClientCall::State> s) {
    auto [ec] = co_await s->deadlineTimer->async_wait(as_tuple(use_awaitable));
    if (!ec && !s->closed) s->end(Status{StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"});
  }

  ClientCall::State* call(int32_t id) {
    auto it = calls_.find(id);
    return it == calls_.end() ? nullptr : it->second.get();
  }
  // user_data is the H2Link* (shared with H2Link::onSessionError).
  static ClientLink& link(void* p) { return static_cast<ClientLink&>(*static_cast<H2Link*>(p)); }

  static int onHeader(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
                      const uint8_t* value, size_t valuelen, uint8_t, void* p) {
    auto* s = link(p).call(frame->hd.stream_id);
    if (!s || frame->hd.type != NGHTTP2_HEADERS) return 0;
    std::string_view k(reinterpret_cast<const char*>(name), namelen), v(reinterpret_cast<const char*>(value), valuelen);
    if (k == ":status") {
      s->httpStatus = std::atoi(std::string(v).c_str());
    } else if (k == "grpc-status") {
      if (!s->grpcStatus) s->grpcStatus.emplace();
      s->grpcStatus->code = static_cast<StatusCode>(std::atoi(std::string(v).c_str()));
    } else if (k == "grpc-message") {
      if (!s->grpcStatus) s->grpcStatus.emplace();
      s->grpcStatus->message = percentDecode(v);
    } else if (k == "grpc-encoding") {
      s->inbox = Inbox(link(p).options_.maxInboundMessageSize, std::string(v));
    } else {
      s->metadata.emplace_back(k, v);
    }
    return 0;
  }

  static int onFrameRecv(nghttp2_session*, const nghttp2_frame* frame, void* p) {
    bool ends = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                (frame->hd.flags & NGHTTP2_FLAG_END_STREAM);
    if (auto* s = link(p).call(frame->hd.stream_id); s && ends) s->inbox.end();
    return 0;
  }

  static int onData(nghttp2_session* session, uint8_t, int32_t id, const uint8_t* data, size_t len, void* p) {
    nghttp2_session_consume_connection(session, len);
    auto* s = link(p).call(id);
    size_t consumeNow = len;
    if (s && !s->closed && !s->localEnd) {
      consumeNow = 0;
      if (auto bad = s->inbox.feed(reinterpret_cast<const char*>(data), len, consumeNow)) s->end(std::move(*bad));
    }
    if (consumeNow > 0) nghttp2_session_consume_stream(session, id, consumeNow);
    return 0;
  }

  static int onStreamClose(nghttp2_session*, int32_t id, uint32_t errorCode, void* p) {
    auto& l = link(p);
    auto it = l.calls_.find(id);
    if (it == l.calls_.end()) return 0;
    auto s = std::move(it->second);
    l.calls_.erase(it);
    s->onClose(errorCode, nullptr);
    return 0;
  }

  static nghttp2_session_callbacks* makeCallbacks() {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_header_callback(cb, onHeader);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, onFrameRecv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, onData);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, onStreamClose);
    nghttp2_session_callbacks_set_error_callback2(cb, H2Link::onSessionError);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(cb, H2Link::onInvalidFrame);
    return cb;
  }

  void onClosed() override {
    auto calls = std::move(calls_);
    calls_.clear();
    for (auto& [id, s] : calls) s->onClose(NGHTTP2_NO_ERROR, "connection closed");
  }

  ChannelOptions options_;
  std::string authority_;
  std::unordered_map<int32_t, std::shared_ptr<ClientCall::State>> calls_;
};

// ---- ClientCall -------------------------------------------------------------------------------

ssize_t ClientCall::State::readBody(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                                    nghttp2_data_source* source, void*) {
  auto* s = static_cast<State*>(source->ptr);
  bool drained = false;
  size_t n = s->outbox.take(buf, length, drained);
  if (!drained || n > 0) {
    if (drained && s->outbox.last) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }
  if (s->outbox.last) {
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return 0;
  }
  s->outbox.deferred = true;
  return NGHTTP2_ERR_DEFERRED;
}

void ClientCall::State::end(Status status) {
  if (closed || localEnd) return;
  localEnd = std::move(status);
  inbox.end();
  if (!link->isOpen()) return;
  nghttp2_submit_rst_stream(link->session(), NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
  link->flush();
}

void ClientCall::State::onClose(uint32_t errorCode, const char* why) {
  if (closed) return;
  closed = true;
  if (localEnd) final = *localEnd;
  else if (why) final = Status{StatusCode::UNAVAILABLE, why};
  else if (grpcStatus) final = *grpcStatus;
  else if (httpStatus != 0 && httpStatus != 200)
    final = Status{fromHttpStatus(httpStatus), "HTTP status " + std::to_string(httpStatus) + " without grpc-status"};
  else if (errorCode == NGHTTP2_REFUSED_STREAM) final = Status{StatusCode::UNAVAILABLE, "stream refused"};
  else if (errorCode == NGHTTP2_CANCEL) final = Status{StatusCode::CANCELLED, "stream reset by the server"};
  else if (errorCode != NGHTTP2_NO_ERROR)
    final = Status{StatusCode::INTERNAL, std::string("stream reset: ") + nghttp2_http2_strerror(errorCode)};
  else final = Status{StatusCode::INTERNAL, "stream ended without grpc-status"};
  inbox.end();
  if (deadlineTimer) deadlineTimer->cancel();
  if (finishWaiter) finishWaiter->cancel();
}

ClientCall::~ClientCall() = default;

bool ClientCall::write(std::string message) {
  if (s_->closed || s_->localEnd || s_->outbox.last) return false;
  if (s_->gzip) s_->outbox.append(gzipMessage(message), true);
  else s_->outbox.append(message);
  if (s_->outbox.deferred) {
    s_->outbox.deferred = false;
    nghttp2_session_resume_data(s_->link->session(), s_->id);
  }
  s_->link->flush();
  return true;
}

void ClientCall::writesDone() {
  if (s_->closed || s_->outbox.last) return;
  s_->outbox.last = true;
  if (s_->outbox.deferred) {
    s_->outbox.deferred = false;
    nghttp2_session_resume_data(s_->link->session(), s_->id);
  }
  s_->link->flush();
}

asio::awaitable<std::optional<std::string>> ClientCall::read() {
  auto keep = s_;
  auto message = co_await keep->inbox.next(*keep->link, keep->id);
  co_return message;
}

void ClientCall::cancel() { s_->end(Status{StatusCode::CANCELLED, "Cancelled on client"}); }

asio::awaitable<Status> ClientCall::finish() {
  auto keep = s_;
  while (!keep->closed) {
    if (!keep->finishWaiter) keep->finishWaiter = std::make_unique<asio::steady_timer>(keep->link->executor());
    keep->finishWaiter->expires_at(Clock::time_point::max());
    co_await keep->finishWaiter->async_wait(as_tuple(use_awaitable));
  }
  co_return keep->final;
}

bool ClientCall::done() const { return s_->closed; }
const Metadata& ClientCall::responseMetadata() const { return s_->metadata; }
int32_t ClientCall::streamId() const { return s_->id; }

// ---- GrpcChannel ------------------------------------------------------------------------------

namespace {

Error connectError(const std::string& host, uint16_t port, const std::string& why) {
  return makeError(ResponseCode::CLIENT_CONNECTION_CLOSED, "grpc: cannot connect to " + host + ":" +
                                                              std::to_string(port) + ": " + why);
}

}  // namespace

asio::awaitable<Result<std::shared_ptr<GrpcChannel>>> GrpcChannel::connect(std::string host, uint16_t port,
                                                                           ChannelOptions options) {
  auto ex = co_await asio::this_coro::executor;
  auto& ctx = static_cast<asio::io_context&>(asio::query(ex, asio::execution::context));
  asio::ip::tcp::resolver resolver(ctx);
  auto [rec, endpoints] = co_await resolver.async_resolve(host, std::to_string(port), as_tuple(use_awaitable));
  if (rec) co_return connectError(host, port, rec.message());
  auto socket = std::make_shared<asio::ip::tcp::socket>(ctx);
  auto fired = std::make_shared<bool>(false);
  asio::steady_timer timer(ctx, options.connectTimeout);
  timer.async_wait([socket, fired](asio::error_code ec) {
    if (ec) return;
    *fired = true;
    socket->close(ec);
  });
  auto [cec, ep] = co_await asio::async_connect(*socket, endpoints, as_tuple(use_awaitable));
  timer.cancel();
  if (*fired) co_return connectError(host, port, "timed out");
  if (cec) co_return connectError(host, port, cec.message());
  std::unique_ptr<net::TlsSession> tls;
  if (options.tls) {
    auto session = co_await net::connectTls(*socket, *options.tls, options.connectTimeout);
    if (!session) co_return connectError(host, port, session.error().message);
    tls = std::move(*session);
  }
  auto link = std::make_shared<ClientLink>(std::move(*socket), std::move(tls), std::move(options));
  if (!link->start()) co_return connectError(host, port, "cannot start an HTTP/2 session");
  co_return std::shared_ptr<GrpcChannel>(new GrpcChannel(std::move(link)));
}

GrpcChannel::~GrpcChannel() { close(); }

std::shared_ptr<ClientCall> GrpcChannel::start(std::string path, Metadata metadata, std::chrono::milliseconds timeout) {
  auto state = link_->startCall(std::move(path), std::move(metadata), timeout);
  return std::shared_ptr<ClientCall>(new ClientCall(std::move(state)));
}

asio::awaitable<UnaryResult> GrpcChannel::unary(std::string path, Metadata metadata, std::string request,
                                                std::chrono::milliseconds timeout) {
  auto call = start(std::move(path), std::move(metadata), timeout);
  call->write(std::move(request));
  call->writesDone();
  UnaryResult result;
  auto first = co_await call->read();
  while (first) {  // the rest, if a server sent more than one (an error below)
    auto extra = co_await call->read();
    if (!extra) break;
    first.reset();
  }
  result.status = co_await call->finish();
  if (result.status.isOk() && !first)
    result.status = Status{StatusCode::INTERNAL, "a unary call ended without exactly one response message"};
  if (result.status.isOk()) result.response = std::move(*first);
  result.metadata = call->responseMetadata();
  co_return result;
}

bool GrpcChannel::isOpen() const { return link_->isOpen(); }
void GrpcChannel::close() { link_->close("closed by the application"); }
asio::io_context::executor_type GrpcChannel::executor() const { return link_->executor(); }
const std::string& GrpcChannel::localAddress() const { return link_->local(); }

}  // namespace rmq::grpc
