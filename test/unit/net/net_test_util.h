#pragma once
// Helpers for loopback tests: a server on 127.0.0.1:<free port> and a blocking raw socket that
// speaks frames by hand (to send garbage and to see exactly what the server writes).
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/connect.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>
#include <sys/socket.h>
#include <sys/time.h>

#include <memory>
#include <optional>
#include <string>

#include "common/bytes.h"
#include "net/frame_codec.h"
#include "net/remoting_server.h"

namespace rmq::net::test {

struct ServerFixture {
  explicit ServerFixture(ConnectionOptions connOptions = {}, ServerTls tls = {}) {
    pool.start();
    ServerOptions o;
    o.host = "127.0.0.1";
    o.port = 0;
    o.connection = connOptions;
    o.tls = std::move(tls);
    server = std::make_unique<RemotingServer>(pool, o, dispatcher);
  }
  ~ServerFixture() {
    if (server) server->stop(std::chrono::milliseconds(0));
    server.reset();
    pool.stop();
  }
  bool start() { return server->start().ok(); }
  std::string addr() const { return "127.0.0.1:" + std::to_string(server->port()); }

  IoPool pool{2};
  std::shared_ptr<Dispatcher> dispatcher = std::make_shared<Dispatcher>();
  std::unique_ptr<RemotingServer> server;
};

// Blocking socket with a 5 s receive timeout so a broken server cannot hang a test.
class RawSocket {
 public:
  // rcvBuf > 0: a fixed small receive buffer (no autotuning), for peers that stop reading.
  explicit RawSocket(uint16_t port, int rcvBuf = 0) : sock_(ctx_) {
    sock_.open(asio::ip::tcp::v4());
    if (rcvBuf > 0) sock_.set_option(asio::socket_base::receive_buffer_size(rcvBuf));
    sock_.connect({asio::ip::make_address("127.0.0.1"), port});
    timeval tv{5, 0};
    ::setsockopt(sock_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  void write(const std::string& bytes) { asio::write(sock_, asio::buffer(bytes)); }
  void send(const RemotingCommand& cmd) { write(encodeFrame(cmd)); }
  // Next frame, or nullopt when the peer closed (or the receive timed out).
  std::optional<RemotingCommand> readFrame() {
    char len[4];
    asio::error_code ec;
    asio::read(sock_, asio::buffer(len), ec);
    if (ec) return std::nullopt;
    std::string frame(loadBE32(len), '\0');
    asio::read(sock_, asio::buffer(frame), ec);
    if (ec) return std::nullopt;
    auto cmd = decodeFrame(frame);
    if (!cmd) return std::nullopt;
    return std::move(cmd.value());
  }
  // Whatever bytes arrive next (up to `max`); "" when the peer closed or the receive timed out.
  std::string readSome(size_t max = 8192) {
    std::string buf(max, '\0');
    asio::error_code ec;
    size_t n = sock_.read_some(asio::buffer(buf), ec);
    buf.resize(ec ? 0 : n);
    return buf;
  }
  // True when the server closed the connection (EOF or reset), false on data or timeout.
  bool closedByPeer() {
    char c;
    asio::error_code ec;
    size_t n = sock_.read_some(asio::buffer(&c, 1), ec);
    return n == 0 && (ec == asio::error::eof || ec == asio::error::connection_reset);
  }

 private:
  asio::io_context ctx_;
  asio::ip::tcp::socket sock_;
};

}  // namespace rmq::net::test
