#include "net/tcp_listener.h"

#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <future>

#include "common/log.h"
#include "common/response_code.h"

namespace rmq::net {

Result<AcceptorPtr> listenTcp(asio::io_context& ctx, const std::string& host, uint16_t port, std::string_view what) {
  std::string where = host + ":" + std::to_string(port);
  asio::error_code ec;
  auto addr = asio::ip::make_address(host, ec);
  if (ec) return makeError(ResponseCode::SYSTEM_ERROR, std::string(what) + ": bad address " + where + ": " + ec.message());
  asio::ip::tcp::endpoint ep(addr, port);
  auto acc = std::make_shared<asio::ip::tcp::acceptor>(ctx);
  if (acc->open(ep.protocol(), ec); !ec) acc->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acc->bind(ep, ec);
  if (!ec) acc->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return makeError(ResponseCode::SYSTEM_ERROR, std::string(what) + ": cannot listen on " + where + ": " + ec.message());
  return acc;
}

asio::awaitable<void> pauseAfterAcceptError(const AcceptorPtr& acc, const asio::error_code& ec, std::string_view what) {
  log::warn("{}: accept failed: {}", what, ec.message());
  asio::steady_timer t(acc->get_executor(), std::chrono::milliseconds(100));
  co_await t.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
}

void closeAcceptor(asio::io_context& ctx, const AcceptorPtr& acc, bool running) {
  if (!running) {
    asio::error_code ec;
    acc->close(ec);
    return;
  }
  auto closed = std::make_shared<std::promise<void>>();
  asio::post(ctx, [acc, closed] {
    asio::error_code ec;
    acc->close(ec);
    closed->set_value();
  });
  closed->get_future().wait_for(std::chrono::seconds(5));
}

}  // namespace rmq::net
