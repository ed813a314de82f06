#include "net/tls_session.h"

#include <cerrno>
#include <cstring>
#include <openssl/err.h>
#include <openssl/ssl.h>

#include "common/response_code.h"

namespace rmq::net {
namespace {

SSL* native(void* p) { return static_cast<SSL*>(p); }

std::string errorQueueText() {
  std::string text;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!text.empty()) text += "; ";
    text += buf;
  }
  return text;
}

}  // namespace

Result<std::unique_ptr<TlsSession>> TlsSession::make(const TlsContext& ctx, int fd, Role role) {
  SSL* ssl = SSL_new(static_cast<SSL_CTX*>(ctx.nativeHandle()));
  if (!ssl || SSL_set_fd(ssl, fd) != 1) {
    if (ssl) SSL_free(ssl);
    return makeError(ResponseCode::SYSTEM_ERROR, "TLS session: " + errorQueueText());
  }
  if (role == Role::Server) SSL_set_accept_state(ssl);
  else SSL_set_connect_state(ssl);
  return std::unique_ptr<TlsSession>(new TlsSession(ssl));
}

TlsSession::~TlsSession() { SSL_free(native(ssl_)); }

TlsSession::Status TlsSession::classify(int rc) {
  int saved = errno;
  switch (SSL_get_error(native(ssl_), rc)) {
    case SSL_ERROR_WANT_READ: return Status::WantRead;
    case SSL_ERROR_WANT_WRITE: return Status::WantWrite;
    case SSL_ERROR_ZERO_RETURN: return Status::Closed;
    case SSL_ERROR_SYSCALL: {
      std::string queued = errorQueueText();
      if (queued.empty() && (saved == 0 || saved == ECONNRESET || saved == EPIPE)) return Status::Closed;  // EOF
      error_ = queued.empty() ? std::strerror(saved) : queued;
      return Status::Failed;
    }
    default:
      error_ = errorQueueText();
      if (error_.empty()) error_ = "TLS error";
      return Status::Failed;
  }
}

TlsSession::Status TlsSession::handshake() {
  ERR_clear_error();
  errno = 0;
  int rc = SSL_do_handshake(native(ssl_));
  return rc == 1 ? Status::Done : classify(rc);
}

TlsSession::Io TlsSession::read(char* into, size_t room) {
  Io io;
  ERR_clear_error();
  while (io.bytes < room) {
    size_t n = 0;
    errno = 0;
    int rc = SSL_read_ex(native(ssl_), into + io.bytes, room - io.bytes, &n);
    if (rc != 1) {
      io.status = classify(rc);
      return io;
    }
    io.bytes += n;
  }
  return io;
}

TlsSession::Io TlsSession::write(const char* data, size_t size) {
  Io io;
  ERR_clear_error();
  errno = 0;
  int rc = SSL_write_ex(native(ssl_), data, size, &io.bytes);
  if (rc != 1) io.status = classify(rc);
  return io;
}

void TlsSession::shutdown() {
  ERR_clear_error();
  if (SSL_is_init_finished(native(ssl_))) SSL_shutdown(native(ssl_));  // non-blocking socket: never waits
  ERR_clear_error();
}

std::string TlsSession::protocol() const { return SSL_get_version(native(ssl_)); }

std::string TlsSession::peerSubject() const {
  X509* cert = SSL_get1_peer_certificate(native(ssl_));
  if (!cert) return {};
  char buf[512];
  X509_NAME_oneline(X509_get_subject_name(cert), buf, sizeof buf);
  X509_free(cert);
  return buf;
}

}  // namespace rmq::net
