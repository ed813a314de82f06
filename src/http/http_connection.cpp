#include "http/http_connection.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <array>

#include "common/log.h"

namespace rmq::http {
namespace {

using Clock = std::chrono::steady_clock;
using asio::experimental::as_tuple;

struct Conn {
  Conn(asio::ip::tcp::socket s, std::shared_ptr<const HttpRouter> r, const HttpServerOptions& o,
       std::function<void()> end)
      : socket(std::move(s)), timer(socket.get_executor()), router(std::move(r)), options(o),
        parser(o.limits), onEnd(std::move(end)) {}

  asio::ip::tcp::socket socket;
  asio::steady_timer timer;
  std::shared_ptr<const HttpRouter> router;
  HttpServerOptions options;
  RequestParser parser;
  std::function<void()> onEnd;
  Clock::time_point deadline = Clock::time_point::max();
  int running = 2;  // the loop and the watchdog (same thread)
  std::string remote;

  void close() {
    asio::error_code ec;
    socket.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket.close(ec);
    timer.cancel();
  }
  void done() {
    if (--running == 0 && onEnd) onEnd();
  }
};

// Closes the socket once `deadline` passes; the loop moves the deadline as it goes.
asio::awaitable<void> watchdog(std::shared_ptr<Conn> c) {
  while (c->socket.is_open()) {
    if (Clock::now() >= c->deadline) {
      c->close();
      break;
    }
    c->timer.expires_at(c->deadline);
    co_await c->timer.async_wait(as_tuple(asio::use_awaitable));
  }
  c->done();
}

void setDeadline(Conn& c, Clock::time_point t) {
  bool earlier = t < c.deadline;
  c.deadline = t;
  if (earlier) c.timer.cancel();  // the watchdog re-arms for the earlier time
}

asio::awaitable<bool> writeAll(Conn& c, const std::string& bytes) {
  setDeadline(c, Clock::now() + c.options.writeTimeout);
  auto [ec, n] = co_await asio::async_write(c.socket, asio::buffer(bytes), as_tuple(asio::use_awaitable));
  co_return !ec;
}

asio::awaitable<HttpResponse> handle(Conn& c, HttpRequest request) {
  request.remoteAddress = c.remote;
  try {
    co_return co_await c.router->route(request);
  } catch (const std::exception& e) {
    log::warn("http: {} {} failed: {}", request.method, request.path, e.what());
  }
  co_return HttpResponse::error(500, "internal error");
}

asio::awaitable<void> serveLoop(std::shared_ptr<Conn> c) {
  std::array<char, 8192> buf;
  std::string pending;  // received, not yet parsed
  size_t offset = 0;
  bool open = true;
  Clock::time_point requestStart{};
  setDeadline(*c, Clock::now() + c->options.idleTimeout);
  while (open) {
    // Parse what we have; answer each complete request in order (pipelining).
    while (offset < pending.size()) {
      bool wasInProgress = c->parser.inProgress();
      offset += c->parser.feed(std::string_view(pending).substr(offset));
      if (!wasInProgress && c->parser.inProgress()) requestStart = Clock::now();
      if (c->parser.errorStatus() != 0) {
        auto response = HttpResponse::error(c->parser.errorStatus(), c->parser.errorMessage());
        std::string bytes = serializeResponse(response, false, false);
        co_await writeAll(*c, bytes);
        open = false;
        break;
      }
      if (!c->parser.ready()) break;
      bool keepAlive = c->parser.keepAlive();
      HttpRequest request = c->parser.take();
      bool head = request.method == "HEAD";
      setDeadline(*c, Clock::time_point::max());  // a handler may take its time
      HttpResponse response = co_await handle(*c, std::move(request));
      std::string bytes = serializeResponse(response, keepAlive, head);
      if (!co_await writeAll(*c, bytes) || !keepAlive) {
        open = false;
        break;
      }
      requestStart = Clock::now();  // a pipelined request already buffered starts now
      setDeadline(*c, Clock::now() + c->options.idleTimeout);
    }
    if (!open) break;
    if (offset == pending.size()) {
      pending.clear();
      offset = 0;
    }
    // A started request must complete within requestTimeout of its first byte; more bytes do not
    // extend it (slowloris).
    if (c->parser.inProgress()) setDeadline(*c, requestStart + c->options.requestTimeout);
    auto [ec, n] = co_await c->socket.async_read_some(asio::buffer(buf), as_tuple(asio::use_awaitable));
    if (ec || n == 0) break;
    pending.append(buf.data(), n);
  }
  c->close();
  c->done();
}

}  // namespace

std::string serializeResponse(const HttpResponse& r, bool keepAlive, bool headOnly) {
  std::string out;
  out.reserve(128 + r.body.size());
  out += "HTTP/1.1 ";
  out += std::to_string(r.status);
  out += ' ';
  out += reasonPhrase(r.status);
  out += "\r\nContent-Type: ";
  out += r.contentType;
  out += "\r\nContent-Length: ";
  out += std::to_string(r.body.size());
  out += "\r\n";
  if (!keepAlive) out += "Connection: close\r\n";
  for (const auto& [k, v] : r.headers) {
    out += k;
    out += ": ";
    out += v;
    out += "\r\n";
  }
  out += "\r\n";
  if (!headOnly) out += r.body;
  return out;
}

std::function<void()> serveConnection(asio::ip::tcp::socket socket, std::shared_ptr<const HttpRouter> router,
                                      const HttpServerOptions& options, std::function<void()> onEnd) {
  auto c = std::make_shared<Conn>(std::move(socket), std::move(router), options, std::move(onEnd));
  asio::error_code ec;
  auto ep = c->socket.remote_endpoint(ec);
  if (!ec) c->remote = ep.address().to_string() + ":" + std::to_string(ep.port());
  auto ex = c->socket.get_executor();
  asio::co_spawn(ex, serveLoop(c), asio::detached);
  asio::co_spawn(ex, watchdog(c), asio::detached);
  std::weak_ptr<Conn> weak = c;
  return [weak, ex] {
    asio::post(ex, [weak] {
      if (auto c = weak.lock()) c->close();
    });
  };
}

}  // namespace rmq::http
