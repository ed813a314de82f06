#include "coord/gateway_connection.h"

#include <asio/connect.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

#include "coord/etcd_types.h"
#include "coord/response_parser.h"

namespace rmq::coord {

using asio::use_awaitable;
using asio::experimental::as_tuple;

struct GatewayConnection::Wire {
  explicit Wire(const asio::any_io_executor& ex) : socket(ex), resolver(ex) {}

  void shut() {
    asio::error_code ignored;
    resolver.cancel();
    socket.close(ignored);
    connected = false;
  }

  // Closes the socket at the deadline unless destroyed first. A timer handler that runs after the
  // watch ended (already queued when it was cancelled) finds another generation and does nothing.
  class Watch {
   public:
    Watch(const std::shared_ptr<Wire>& wire, std::chrono::milliseconds timeout)
        : wire_(wire), timer_(wire->socket.get_executor(), timeout) {
      wire->timedOut = false;
      timer_.async_wait([weak = std::weak_ptr<Wire>(wire), gen = wire->generation](asio::error_code ec) {
        auto w = weak.lock();
        if (ec || !w || w->generation != gen) return;
        w->timedOut = true;
        w->shut();
      });
    }
    ~Watch() { ++wire_->generation; }

   private:
    std::shared_ptr<Wire> wire_;
    asio::steady_timer timer_;
  };

  asio::ip::tcp::socket socket;
  asio::ip::tcp::resolver resolver;
  uint64_t generation = 0;
  bool connected = false;
  bool timedOut = false;
  bool closedByUser = false;
};

GatewayConnection::GatewayConnection(asio::any_io_executor ex, std::string endpoint)
    : ex_(std::move(ex)), endpoint_(std::move(endpoint)), wire_(std::make_shared<Wire>(ex_)) {}

GatewayConnection::~GatewayConnection() { wire_->shut(); }

bool GatewayConnection::reusable() const { return wire_->connected && keepAlive_ && !wire_->closedByUser; }

void GatewayConnection::close() {
  wire_->closedByUser = true;
  wire_->shut();
}

std::string GatewayConnection::cause(const std::string& what) const {
  if (wire_->closedByUser) return "etcd " + endpoint_ + ": client closed";
  if (wire_->timedOut) return "etcd " + endpoint_ + ": timeout after " + std::to_string(timeout_.count()) + "ms";
  return "etcd " + endpoint_ + ": " + what;
}

asio::awaitable<Result<HttpAnswer>> GatewayConnection::post(std::string_view path, std::string_view body,
                                                            std::chrono::milliseconds timeout) {
  const std::string request = requestText(path, body, endpoint_);
  timeout_ = timeout;
  Wire::Watch watch(wire_, timeout);
  const bool kept = wire_->connected;
  for (int round = 0;; ++round) {
    if (wire_->closedByUser) co_return Error{kEtcdUnavailable, cause("")};
    if (!wire_->connected) {
      auto connected = co_await connect();
      if (!connected) co_return connected.error();
    }
    HttpAnswer answer;
    std::string error;
    auto outcome = co_await exchange(request, answer, error);
    if (outcome == Outcome::Answered) {
      if (!keepAlive_) wire_->shut();
      co_return answer;
    }
    wire_->shut();
    // A kept connection the server closed while it was idle: once more on a fresh one.
    const bool retry = outcome == Outcome::StaleKeepAlive && kept && round == 0 && !wire_->timedOut;
    if (!retry) co_return Error{kEtcdUnavailable, cause(error)};
  }
}

std::string GatewayConnection::requestText(std::string_view path, std::string_view body, const std::string& host) {
  std::string request;
  request.reserve(160 + body.size());
  request.append("POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(host);
  request.append("\r\nContent-Type: application/json\r\nContent-Length: ").append(std::to_string(body.size()));
  request.append("\r\n\r\n").append(body);
  return request;
}

asio::awaitable<Result<bool>> GatewayConnection::stream(std::string_view path, std::string_view body,
                                                        std::chrono::milliseconds timeout,
                                                        std::function<bool(std::string_view)> onMessage) {
  const std::string request = requestText(path, body, endpoint_);
  timeout_ = timeout;
  Wire::Watch watch(wire_, timeout);
  struct Closer {  // the stream never ends by itself: the connection is not reusable
    Wire& wire;
    ~Closer() { wire.shut(); }
  } closer{*wire_};
  if (wire_->closedByUser) co_return Error{kEtcdUnavailable, cause("")};
  if (!wire_->connected) {
    auto connected = co_await connect();
    if (!connected) co_return connected.error();
  }
  auto [wec, written] = co_await asio::async_write(wire_->socket, asio::buffer(request), as_tuple(use_awaitable));
  if (wec) co_return Error{kEtcdUnavailable, cause("sending the request: " + wec.message())};
  ResponseParser parser;
  std::string buf(4096, '\0');
  size_t used = 0;  // body bytes handed out as messages
  for (;;) {
    auto [ec, got] = co_await wire_->socket.async_read_some(asio::buffer(buf), as_tuple(use_awaitable));
    if (got > 0 && !parser.feed(std::string_view(buf.data(), got)))
      co_return Error{kEtcdUnavailable, cause(parser.error())};
    if (parser.status() != 0 && parser.status() != 200) {
      if (!parser.complete() && !ec) continue;  // the error's body first
      co_return Error{kEtcdUnavailable, cause("HTTP " + std::to_string(parser.status()) + ": " + parser.body())};
    }
    const std::string& text = parser.body();
    for (size_t nl; (nl = text.find('\n', used)) != std::string::npos; used = nl + 1)
      if (onMessage(std::string_view(text).substr(used, nl - used))) co_return true;
    if (wire_->timedOut) co_return false;
    if (parser.complete()) co_return Error{kEtcdUnavailable, cause("the stream ended")};
    if (ec) co_return Error{kEtcdUnavailable, cause("reading the stream: " + ec.message())};
  }
}

asio::awaitable<Result<void>> GatewayConnection::connect() {
  auto colon = endpoint_.rfind(':');
  if (colon == std::string::npos || colon == 0)
    co_return Error{kEtcdUnavailable, "etcd " + endpoint_ + ": endpoint is not host:port"};
  std::string host = endpoint_.substr(0, colon), port = endpoint_.substr(colon + 1);
  auto [rec, endpoints] = co_await wire_->resolver.async_resolve(host, port, as_tuple(use_awaitable));
  if (wire_->timedOut || wire_->closedByUser) co_return Error{kEtcdUnavailable, cause("resolving")};
  if (rec) co_return Error{kEtcdUnavailable, cause("resolve: " + rec.message())};
  auto [ec, ep] = co_await asio::async_connect(wire_->socket, endpoints, as_tuple(use_awaitable));
  if (wire_->timedOut || wire_->closedByUser) co_return Error{kEtcdUnavailable, cause("connecting")};
  if (ec) {
    wire_->shut();
    co_return Error{kEtcdUnavailable, cause("connect: " + ec.message())};
  }
  asio::error_code ignored;
  wire_->socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  wire_->connected = true;
  keepAlive_ = false;
  co_return Result<void>();
}

asio::awaitable<GatewayConnection::Outcome> GatewayConnection::exchange(const std::string& request,
                                                                        HttpAnswer& answer, std::string& error) {
  auto [wec, written] = co_await asio::async_write(wire_->socket, asio::buffer(request), as_tuple(use_awaitable));
  if (wec) {
    error = "sending the request: " + wec.message();
    co_return Outcome::StaleKeepAlive;
  }
  ResponseParser parser;
  std::string buf(16 * 1024, '\0');
  for (;;) {
    auto [ec, got] = co_await wire_->socket.async_read_some(asio::buffer(buf), as_tuple(use_awaitable));
    if (got > 0 && !parser.feed(std::string_view(buf.data(), got))) {
      error = parser.error();
      co_return Outcome::Failed;
    }
    if (!parser.complete() && ec == asio::error::eof) parser.feedEof();
    if (parser.complete()) {
      answer.status = parser.status();
      answer.body = parser.body();
      keepAlive_ = parser.keepAlive() && !ec;
      co_return Outcome::Answered;
    }
    if (ec) {
      error = ec == asio::error::eof ? parser.error() : "waiting for the answer: " + ec.message();
      co_return parser.started() ? Outcome::Failed : Outcome::StaleKeepAlive;
    }
  }
}

}  // namespace rmq::coord
