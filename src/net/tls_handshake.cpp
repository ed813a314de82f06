#include "net/tls_handshake.h"

#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <fmt/format.h>
#include <sys/socket.h>

#include "common/response_code.h"

namespace rmq::net {
namespace {

using asio::experimental::as_tuple;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;
using tcp = asio::ip::tcp;

Error refused(std::string message) { return makeError(ResponseCode::SYSTEM_ERROR, std::move(message)); }

Clock::time_point deadlineAfter(std::chrono::milliseconds d) {
  return d.count() > 0 ? Clock::now() + d : Clock::time_point::max();
}

// Waits until the socket is ready for `what`, or the deadline passes (timed_out). The timer's
// handler may run after this returns (already queued): `done` keeps it off the socket then.
asio::awaitable<asio::error_code> waitReady(tcp::socket& socket, tcp::socket::wait_type what, Clock::time_point deadline) {
  if (deadline == Clock::time_point::max()) {
    auto [ec] = co_await socket.async_wait(what, as_tuple(use_awaitable));
    co_return ec;
  }
  asio::steady_timer timer(socket.get_executor(), deadline);
  auto done = std::make_shared<bool>(false), fired = std::make_shared<bool>(false);
  timer.async_wait([&socket, done, fired](asio::error_code ec) {
    if (ec || *done) return;
    *fired = true;
    socket.cancel(ec);
  });
  auto [ec] = co_await socket.async_wait(what, as_tuple(use_awaitable));
  *done = true;
  timer.cancel();
  if (*fired) co_return asio::error::timed_out;
  co_return ec;
}

asio::awaitable<Result<void>> handshake(tcp::socket& socket, TlsSession& tls, Clock::time_point deadline,
                                        std::chrono::milliseconds timeout) {
  for (;;) {
    auto status = tls.handshake();
    if (status == TlsSession::Status::Done) co_return Result<void>{};
    if (status == TlsSession::Status::Closed) co_return refused("closed by the peer during the TLS handshake");
    if (status == TlsSession::Status::Failed) co_return refused("TLS handshake failed: " + tls.error());
    auto what = status == TlsSession::Status::WantRead ? tcp::socket::wait_read : tcp::socket::wait_write;
    auto ec = co_await waitReady(socket, what, deadline);
    if (ec == asio::error::timed_out)
      co_return refused(fmt::format("TLS handshake not finished after {} ms", timeout.count()));
    if (ec) co_return refused("TLS handshake: " + ec.message());
  }
}

// The first byte, left in the socket; nullopt: closed or nothing within the deadline (`why`).
asio::awaitable<std::optional<uint8_t>> peekFirstByte(tcp::socket& socket, Clock::time_point deadline, std::string& why) {
  for (;;) {
    uint8_t first = 0;
    ssize_t n = ::recv(socket.native_handle(), &first, 1, MSG_PEEK);
    if (n == 1) co_return first;
    if (n == 0) {
      why = "";  // a port probe or health check: nothing to report
      co_return std::nullopt;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      why = std::string("read failed: ") + std::strerror(errno);
      co_return std::nullopt;
    }
    auto ec = co_await waitReady(socket, tcp::socket::wait_read, deadline);
    if (ec) {
      why = ec == asio::error::timed_out ? "nothing sent before the idle timeout" : "read failed: " + ec.message();
      co_return std::nullopt;
    }
  }
}

}  // namespace

FirstByteVerdict judgeFirstByte(uint8_t first, TlsMode mode) {
  if (mode == TlsMode::Disabled) return FirstByteVerdict::Plaintext;
  if (first == kTlsHandshakeRecord) return FirstByteVerdict::Tls;
  return mode == TlsMode::Enforcing ? FirstByteVerdict::Refuse : FirstByteVerdict::Plaintext;
}

asio::awaitable<Result<std::unique_ptr<TlsSession>>> admitConnection(tcp::socket& socket, const ServerTls& tls,
                                                                      std::chrono::seconds firstByteTimeout,
                                                                      std::chrono::seconds handshakeTimeout) {
  asio::error_code ec;
  socket.non_blocking(true, ec);
  std::string why;
  auto first = co_await peekFirstByte(socket, deadlineAfter(firstByteTimeout), why);
  if (!first && why.empty())
    co_return makeError(ResponseCode::CLIENT_CONNECTION_CLOSED, "closed by the peer before sending anything");
  if (!first) co_return refused(why);
  switch (judgeFirstByte(*first, tls.mode)) {
    case FirstByteVerdict::Plaintext: co_return std::unique_ptr<TlsSession>();
    case FirstByteVerdict::Refuse:
      co_return refused("plaintext connection refused: this port requires TLS (tls.server.mode=enforcing)");
    case FirstByteVerdict::Tls: break;
  }
  auto session = TlsSession::make(*tls.context, socket.native_handle(), TlsSession::Role::Server);
  if (!session) co_return session.error();
  auto done = co_await handshake(socket, **session, deadlineAfter(handshakeTimeout), handshakeTimeout);
  if (!done) co_return done.error();
  co_return std::move(*session);
}

asio::awaitable<Result<std::unique_ptr<TlsSession>>> connectTls(tcp::socket& socket, const TlsContext& tls,
                                                                std::chrono::milliseconds timeout) {
  asio::error_code ec;
  socket.non_blocking(true, ec);
  auto session = TlsSession::make(tls, socket.native_handle(), TlsSession::Role::Client);
  if (!session) co_return session.error();
  auto done = co_await handshake(socket, **session, deadlineAfter(timeout), timeout);
  if (!done) co_return done.error();
  co_return std::move(*session);
}

asio::awaitable<asio::error_code> writeAllTls(tcp::socket& socket, TlsSession& tls, const char* data, size_t size,
                                              Clock::time_point* progress) {
  size_t done = 0;
  while (done < size) {
    auto io = tls.write(data + done, size - done);
    if (io.bytes > 0) {
      done += io.bytes;
      if (progress) *progress = Clock::now();
    }
    using S = TlsSession::Status;
    if (io.status == S::Done) continue;
    if (io.status == S::Closed) co_return asio::error::make_error_code(asio::error::broken_pipe);
    if (io.status == S::Failed) co_return asio::error::make_error_code(asio::error::connection_aborted);
    auto what = io.status == S::WantWrite ? tcp::socket::wait_write : tcp::socket::wait_read;
    auto [ec] = co_await socket.async_wait(what, as_tuple(use_awaitable));
    if (ec) co_return ec;
  }
  co_return asio::error_code{};
}

}  // namespace rmq::net
