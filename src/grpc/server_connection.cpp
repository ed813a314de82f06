#include "grpc/server_connection.h"

#include <nghttp2/nghttp2.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>

#include "common/log.h"
#include "grpc/h2_settings.h"
#include "grpc/server_stream.h"

namespace rmq::grpc {

// nghttp2's callbacks of a server session.
struct ServerCallbacks {
  // user_data is the H2Link* (shared with H2Link::onSessionError).
  static ServerConnection& conn(void* p) { return static_cast<ServerConnection&>(*static_cast<H2Link*>(p)); }

  static int beginHeaders(nghttp2_session*, const nghttp2_frame* frame, void* p) {
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST)
      conn(p).beginStream(frame->hd.stream_id);
    return 0;
  }

  static int header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
                    const uint8_t* value, size_t valuelen, uint8_t, void* p) {
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;  // trailers
    if (auto* s = conn(p).stream(frame->hd.stream_id))
      s->addHeader({reinterpret_cast<const char*>(name), namelen}, {reinterpret_cast<const char*>(value), valuelen});
    return 0;
  }

  static int frameRecv(nghttp2_session*, const nghttp2_frame* frame, void* p) {
    auto& c = conn(p);
    if (frame->hd.type == NGHTTP2_PING && (frame->hd.flags & NGHTTP2_FLAG_ACK)) {
      c.pingSentAt_.reset();
      return 0;
    }
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) return 0;
    auto it = c.streams_.find(frame->hd.stream_id);
    if (it == c.streams_.end()) return 0;
    auto stream = it->second;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) c.startCall(stream);
    if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) stream->onRemoteEnd();
    return 0;
  }

  static int dataChunk(nghttp2_session* session, uint8_t, int32_t id, const uint8_t* data, size_t len, void* p) {
    nghttp2_session_consume_connection(session, len);  // connection credit: back at once
    auto it = conn(p).streams_.find(id);
    if (it == conn(p).streams_.end()) {
      nghttp2_session_consume_stream(session, id, len);
      return 0;
    }
    auto stream = it->second;
    stream->onData(data, len);
    return 0;
  }

  static int frameSent(nghttp2_session*, const nghttp2_frame* frame, void* p) {
    if (frame->hd.type == NGHTTP2_GOAWAY) conn(p).goAwaySent(frame->goaway.error_code);
    bool endsStream = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                      (frame->hd.flags & NGHTTP2_FLAG_END_STREAM);
    if (!endsStream) return 0;
    auto it = conn(p).streams_.find(frame->hd.stream_id);
    if (it != conn(p).streams_.end()) it->second->onLocalEnd();
    return 0;
  }

  static int streamClose(nghttp2_session*, int32_t id, uint32_t errorCode, void* p) {
    auto& c = conn(p);
    auto it = c.streams_.find(id);
    if (it == c.streams_.end()) return 0;
    auto stream = std::move(it->second);
    c.streams_.erase(it);
    stream->onClose(errorCode);
    if (c.streams_.empty()) c.rewatch();  // the idle clock starts now
    return 0;
  }

  static nghttp2_session_callbacks* make() {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cb, beginHeaders);
    nghttp2_session_callbacks_set_on_header_callback(cb, header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, frameRecv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, dataChunk);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, frameSent);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, streamClose);
    nghttp2_session_callbacks_set_error_callback2(cb, H2Link::onSessionError);
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(cb, H2Link::onInvalidFrame);
    return cb;
  }
};

namespace {

// application/grpc, application/grpc+proto, application/grpc;charset=... (not application/grpcx).
bool isGrpcContentType(std::string_view ct) {
  constexpr std::string_view kGrpc = "application/grpc";
  if (ct.substr(0, kGrpc.size()) != kGrpc) return false;
  return ct.size() == kGrpc.size() || ct[kGrpc.size()] == '+' || ct[kGrpc.size()] == ';';
}

asio::awaitable<void> runHandler(CallHandler handler, std::shared_ptr<ServerStream> call) {
  try {
    auto work = handler(call);
    co_await std::move(work);
  } catch (const std::exception& e) {
    log::warn("grpc: handler of {} threw: {}", call->path(), e.what());
  }
  if (!call->finishedByHandler()) call->finish(Status{StatusCode::INTERNAL, "handler ended without a status"});
}

}  // namespace

ServerConnection::ServerConnection(asio::ip::tcp::socket socket, std::unique_ptr<net::TlsSession> tls,
                                   std::shared_ptr<ServerShared> shared)
    : H2Link(std::move(socket), std::move(tls), "grpc", shared->options.connection.maxPendingWriteBytes),
      shared_(std::move(shared)) {}

bool ServerConnection::start() {
  static nghttp2_session_callbacks* callbacks = ServerCallbacks::make();
  auto options = sessionOptions();
  int rc = nghttp2_session_server_new3(&session_, callbacks, static_cast<H2Link*>(this), options.get(),
                                       memory_.mem());
  if (rc != 0 || submitSettings(session_, shared_->options.maxConcurrentStreams) != 0) {
    log::warn("grpc: connection {}: cannot start an HTTP/2 session: {}", peer(), nghttp2_strerror(rc));
    return false;
  }
  log::debug("grpc: connection {} opened{}", peer(), isTls() ? " (TLS)" : "");
  startIo();
  return true;
}

void ServerConnection::goAway() {
  auto self = shared_from_this();
  asio::post(executor(), [this, self] {
    if (!isOpen()) return;
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(session_),
                          NGHTTP2_NO_ERROR, nullptr, 0);
    flush();
  });
}

ServerStream* ServerConnection::stream(int32_t id) {
  auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : it->second.get();
}

void ServerConnection::beginStream(int32_t id) {
  if (streams_.empty()) rewatch();  // keepalive instead of the idle clock
  auto self = std::static_pointer_cast<ServerConnection>(shared_from_this());
  streams_.emplace(id, std::make_shared<ServerStream>(std::move(self), id));
}

void ServerConnection::startCall(const std::shared_ptr<ServerStream>& stream) {
  if (stream->header(":method") != "POST")
    return stream->rejectWith(405, {StatusCode::INTERNAL, "gRPC requires HTTP method POST"});
  if (auto ct = stream->header("content-type"); !isGrpcContentType(ct))
    return stream->rejectWith(415, {StatusCode::INTERNAL, "Content-Type \"" + std::string(ct) + "\" is not gRPC"});
  auto handler = shared_->handlers.find(stream->path());
  if (handler == shared_->handlers.end())
    return stream->rejectWith(200, {StatusCode::UNIMPLEMENTED, "Method not found: " + stream->path()});
  auto timeoutText = stream->header("grpc-timeout");
  auto timeout = parseTimeout(timeoutText);
  if (!timeoutText.empty() && !timeout)
    return stream->rejectWith(200, {StatusCode::INTERNAL, "Malformed grpc-timeout: " + std::string(timeoutText)});
  stream->accept(timeout.value_or(Clock::duration::zero()), timeout.has_value());
  asio::co_spawn(executor(), runHandler(handler->second, stream), asio::detached);
}

void ServerConnection::onClosed() {
  auto streams = std::move(streams_);
  streams_.clear();
  for (auto& [id, s] : streams) s->onClose(NGHTTP2_CANCEL);
  std::lock_guard lk(shared_->mu);
  shared_->connections.erase(id());
}

H2Link::Clock::time_point ServerConnection::watch(Clock::time_point now) {
  constexpr auto never = Clock::time_point::max();
  const auto& o = shared_->options;
  auto idle = o.connection.idleTimeout;
  auto idleAt = streams_.empty() && idle.count() > 0 ? lastActivity_ + idle : never;
  bool keepalive = !streams_.empty() && o.keepaliveTime.count() > 0;
  auto pingAt = keepalive && !pingSentAt_ ? lastRead_ + o.keepaliveTime : never;
  auto pingDue = pingSentAt_ ? *pingSentAt_ + o.keepaliveTimeout : never;
  if (now >= idleAt) {
    log::info("grpc: closing connection {}: idle for {}s", peer(), idle.count());
    terminate(NGHTTP2_NO_ERROR, "idle timeout", false);
    return never;
  }
  if (now >= pingDue) {
    closeNow("no PING ack within " + std::to_string(o.keepaliveTimeout.count()) + " ms", true);
    return never;
  }
  if (now >= pingAt) {  // open streams, nothing heard: is the peer still there?
    nghttp2_submit_ping(session_, NGHTTP2_FLAG_NONE, nullptr);
    pingSentAt_ = now;
    return now + o.keepaliveTimeout;
  }
  return std::min({idleAt, pingAt, pingDue});
}

}  // namespace rmq::grpc
