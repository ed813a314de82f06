#include "repl/ha_link.h"

#include <algorithm>
#include <asio/experimental/as_tuple.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <array>

#include "common/log.h"

namespace rmq::repl {

using asio::use_awaitable;
using asio::experimental::as_tuple;
using std::chrono::milliseconds;

HaLink::HaLink(asio::ip::tcp::socket&& socket, std::string role, std::string address)
    : socket_(std::move(socket)),
      watchTimer_(socket_.get_executor()),
      role_(std::move(role)),
      address_(std::move(address)),
      lastRead_(Clock::now()) {}

bool HaLink::close(std::string_view why) {
  if (closed_) return false;
  closed_ = true;
  log::info("HA: connection to {} {} closed: {}", role_, address_, why);
  asio::error_code ec;
  socket_.close(ec);
  watchTimer_.cancel();
  return true;
}

asio::awaitable<HaLink::Read> HaLink::readSome(asio::mutable_buffer buf) {
  auto [ec, n] = co_await socket_.async_read_some(buf, as_tuple(use_awaitable));
  Read r;
  if (ec) {
    r.failure = ec == asio::error::eof ? "closed by the " + role_ : "read failed: " + ec.message();
    co_return r;
  }
  lastRead_ = Clock::now();
  r.n = n;
  co_return r;
}

asio::awaitable<HaLink::Read> HaLink::readExactly(asio::mutable_buffer buf) {
  Read total;
  while (total.n < buf.size()) {
    auto rest = buf + total.n;
    auto r = co_await readSome(rest);
    if (!r.failure.empty()) co_return r;
    total.n += r.n;
  }
  co_return total;
}

asio::awaitable<std::string> HaLink::writeHandshake(EpochHandshake h) {
  const auto out = encodeHandshake(h);
  const auto outBuf = asio::buffer(out);
  auto [ec, n] = co_await asio::async_write(socket_, outBuf, as_tuple(use_awaitable));
  co_return ec ? "handshake write failed: " + ec.message() : std::string();
}

asio::awaitable<HaLink::HandshakeRead> HaLink::readHandshake() {
  std::array<char, kEpochHandshakeSize> in;
  auto inBuf = asio::buffer(in);
  auto got = co_await readExactly(inBuf);
  HandshakeRead r;
  r.failure = std::move(got.failure);
  if (r.failure.empty()) r.value = decodeHandshake(in.data());
  co_return r;
}

asio::awaitable<void> HaLink::dropWhenSilent(milliseconds limit, std::function<void(const std::string&)> drop) {
  const auto period = std::clamp<Clock::duration>(limit / 4, milliseconds(50), milliseconds(1000));
  while (!closed_) {
    watchTimer_.expires_after(period);
    co_await watchTimer_.async_wait(as_tuple(use_awaitable));
    if (closed_) break;
    auto silent = std::chrono::duration_cast<milliseconds>(Clock::now() - lastRead_);
    if (silent > limit) {
      log::warn("HA: {} {} sent nothing for {} ms (haHousekeepingInterval {} ms)", role_, address_, silent.count(),
                limit.count());
      drop("housekeeping: " + role_ + " silent");
      co_return;
    }
  }
}

}  // namespace rmq::repl
