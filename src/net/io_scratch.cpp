#include "net/io_scratch.h"

#include <memory>

#include "net/tls_session.h"

namespace rmq::net {

char* scratchBuffer() {
  thread_local std::unique_ptr<char[]> buf(new char[kScratchSize]);
  return buf.get();
}

SocketRead readNonBlocking(asio::ip::tcp::socket& socket, TlsSession* tls, char* into, size_t room) {
  SocketRead r;
  if (tls) {  // drained only when OpenSSL saw the socket empty
    auto io = tls->read(into, room);
    r.bytes = io.bytes;
    switch (io.status) {
      case TlsSession::Status::Done: r.outcome = ReadOutcome::More; return r;
      case TlsSession::Status::WantRead: r.outcome = ReadOutcome::Drained; return r;
      case TlsSession::Status::WantWrite: r.outcome = ReadOutcome::WantWrite; return r;
      case TlsSession::Status::Closed: r.why = "closed by peer"; break;
      case TlsSession::Status::Failed: r.why = "TLS: " + tls->error(); r.problem = true; break;
    }
    r.outcome = ReadOutcome::Closed;
    return r;
  }
  asio::error_code ec;
  r.bytes = socket.read_some(asio::buffer(into, room), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) return r;
  if (ec) {
    r.bytes = 0;
    r.outcome = ReadOutcome::Closed;
    r.problem = ec != asio::error::eof && ec != asio::error::connection_reset;
    r.why = ec == asio::error::eof ? "closed by peer" : "read failed: " + ec.message();
    return r;
  }
  r.outcome = r.bytes == room ? ReadOutcome::More : ReadOutcome::Drained;  // a short read took all there was
  return r;
}

}  // namespace rmq::net
