#pragma once
// TlsSession: OpenSSL on a connection's non-blocking socket descriptor (SSL_set_fd). OpenSSL reads
// and writes the socket itself, so a record goes from the kernel into OpenSSL's read buffer and
// decrypts straight into the caller's buffer (the per-thread scratch of tcp_connection_io.cpp),
// and encrypts into its write buffer that goes to the kernel: no copies beyond those of the
// encryption itself and no second buffer pair (asio::ssl::stream would add 2 x 17 KiB staging
// buffers and a BIO pair per connection, and a copy of every byte each way).
// Thread: the connection's; every call returns at once (WantRead / WantWrite: wait for the socket).
#include <cstddef>
#include <memory>
#include <string>

#include "common/result.h"
#include "net/tls_context.h"

namespace rmq::net {

class TlsSession {
 public:
  enum class Role { Server, Client };
  // Done: finished (read: `room` filled, call again); WantRead / WantWrite: wait for the socket;
  // Closed: the peer closed (close_notify or EOF); Failed: protocol or I/O error (error()).
  enum class Status { Done, WantRead, WantWrite, Closed, Failed };
  struct Io {
    size_t bytes = 0;
    Status status = Status::Done;
  };

  static Result<std::unique_ptr<TlsSession>> make(const TlsContext& ctx, int fd, Role role);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  Status handshake();                       // one step of the handshake
  Io read(char* into, size_t room);         // decrypts until `room` is full or the socket is drained
  Io write(const char* data, size_t size);  // encrypts and sends (records of up to 16 KiB; may be partial)
  void shutdown();                          // sends close_notify if it can without waiting
  const std::string& error() const { return error_; }
  std::string protocol() const;     // "TLSv1.3"
  std::string peerSubject() const;  // subject of the peer's certificate, "" without one

 private:
  explicit TlsSession(void* ssl) : ssl_(ssl) {}
  Status classify(int rc);
  void* ssl_;  // SSL*
  std::string error_;
};

}  // namespace rmq::net
