#pragma once
// One end of an HA connection, shared by the master's per-slave connection and the slave's
// session: the socket, who the peer is, when it last sent something, closing, and the
// housekeeping watchdog (a peer that sent nothing for haHousekeepingInterval is dropped: Java's
// HAConnection / HAClient housekeeping). Used on the socket's executor (the HA thread) only.
#include <asio/awaitable.hpp>
#include <asio/buffer.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "repl/ha_protocol.h"

namespace rmq::repl {

class HaLink {
 public:
  using Clock = std::chrono::steady_clock;
  // role: what the peer is ("slave" / "master"); address: its ip:port.
  HaLink(asio::ip::tcp::socket&& socket, std::string role, std::string address);

  asio::ip::tcp::socket& socket() { return socket_; }
  asio::any_io_executor executor() { return socket_.get_executor(); }
  const std::string& address() const { return address_; }
  bool closed() const { return closed_; }

  // Closes the socket and stops the watchdog, logging why; false when it was closed already (the
  // owner then skips its own clean-up).
  bool close(std::string_view why);

  struct Read {
    size_t n = 0;
    std::string failure;  // empty: n bytes arrived; else why the connection ends
  };
  // Reads what the peer sent; every read restarts the silence clock.
  asio::awaitable<Read> readSome(asio::mutable_buffer buf);
  // Reads exactly buf.size() bytes; a failure as readSome's.
  asio::awaitable<Read> readExactly(asio::mutable_buffer buf);
  // The failover handshake's halves (ha_protocol.h): "" / a value, or why the link failed (the
  // owner closes with it).
  asio::awaitable<std::string> writeHandshake(EpochHandshake h);
  struct HandshakeRead {
    EpochHandshake value;
    std::string failure;
  };
  asio::awaitable<HandshakeRead> readHandshake();

  // The watchdog: checks every limit/4 (50 ms .. 1 s) until the link is closed; once the peer has
  // been silent for more than `limit`, one warning and drop("housekeeping: <role> silent") (the
  // owner's close; it may hold the owner alive).
  asio::awaitable<void> dropWhenSilent(std::chrono::milliseconds limit, std::function<void(const std::string&)> drop);

 private:
  asio::ip::tcp::socket socket_;
  asio::steady_timer watchTimer_;
  const std::string role_;
  const std::string address_;
  Clock::time_point lastRead_;
  bool closed_ = false;
};

}  // namespace rmq::repl
