#pragma once
// The reading both connection kinds share (remoting frames in tcp_connection_io.cpp, HTTP/2 bytes
// in src/grpc): the per-io-thread read buffer every connection of the thread reads into (an idle
// connection keeps no read buffer of its own, only the bytes of an incomplete frame; valid until
// the thread's next read, never held across a co_await), and one non-blocking read, plaintext or
// through a TlsSession on the same socket.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/ip/tcp.hpp>
#include <string>

namespace rmq::net {

constexpr size_t kScratchSize = 64 * 1024;
char* scratchBuffer();  // kScratchSize bytes, this thread's

class TlsSession;

// More: `room` was filled (more may wait); Drained: the socket is empty (wait for readable);
// WantWrite: TLS must send a record first; Closed: the peer closed or the read failed.
enum class ReadOutcome { More, Drained, WantWrite, Closed };
struct SocketRead {
  size_t bytes = 0;
  ReadOutcome outcome = ReadOutcome::Drained;
  std::string why;       // Closed: "closed by peer", "read failed: ...", "TLS: ..."
  bool problem = false;  // Closed other than by a plain EOF or reset (worth a warning)
};
// One non-blocking read into `into` (the socket must be non-blocking); `tls` null = plaintext,
// else OpenSSL decrypts straight into `into`.
SocketRead readNonBlocking(asio::ip::tcp::socket& socket, TlsSession* tls, char* into, size_t room);

}  // namespace rmq::net
