#include "net/tls_context.h"

#include <asio/ssl/context.hpp>
#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <csignal>
#include <cstring>
#include <mutex>
#include <unistd.h>

#include "common/response_code.h"
#include "net/tls_self_signed.h"

namespace rmq::net {
namespace {

using asio::ssl::context;

Error tlsError(std::string message) { return makeError(ResponseCode::SYSTEM_ERROR, std::move(message)); }

// "tls.server.certPath: cannot read /x: No such file or directory" when a path is unusable.
Result<void> checkReadable(std::string_view key, const std::string& path) {
  if (::access(path.c_str(), R_OK) == 0) return {};
  return tlsError(fmt::format("{}: cannot read {}: {}", key, path, std::strerror(errno)));
}

// The settings every remoting context shares: TLS 1.2+, no renegotiation, and the modes the
// connection code relies on (tcp_connection_io.cpp): partial writes of a moving staging buffer,
// read-ahead (one read syscall fills OpenSSL's buffer, not two per record), and buffers released
// while a connection is idle (what an idle TLS connection costs is mostly OpenSSL's buffers).
void commonSetup(context& ctx) {
  auto* native = ctx.native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  // A peer that closes without close_notify (Java clients often do) is a plain EOF, as on a
  // plaintext connection: frames carry their own lengths, so truncation cannot go unnoticed.
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_mode(native, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                               SSL_MODE_RELEASE_BUFFERS);
  SSL_CTX_set_read_ahead(native, 1);
}

// Loads the certificate chain and private key of one side; `side` is "tls.server" or "tls.client".
Result<void> loadKeyPair(context& ctx, std::string_view side, const std::string& certPath, const std::string& keyPath,
                         const std::string& password) {
  const std::string certKey = fmt::format("{}.certPath", side), keyKey = fmt::format("{}.keyPath", side);
  if (certPath.empty()) return tlsError(fmt::format("{}: no certificate given (and {}.keyPath is {})", certKey, side,
                                                    keyPath.empty() ? "empty" : keyPath));
  if (keyPath.empty()) return tlsError(fmt::format("{}: no private key given for {}", keyKey, certPath));
  if (auto r = checkReadable(certKey, certPath); !r) return r;
  if (auto r = checkReadable(keyKey, keyPath); !r) return r;
  asio::error_code ec;
  ctx.use_certificate_chain_file(certPath, ec);
  if (ec) return tlsError(fmt::format("{}: cannot load a PEM certificate from {}: {}", certKey, certPath, ec.message()));
  ctx.set_password_callback([password](std::size_t, context::password_purpose) { return password; }, ec);
  ctx.use_private_key_file(keyPath, context::pem, ec);
  if (ec && !password.empty())
    return tlsError(fmt::format("{}.keyPassword: cannot decrypt the private key {} with it: {}", side, keyPath,
                                ec.message()));
  if (ec) return tlsError(fmt::format("{}: cannot load a PEM private key from {} (encrypted? set {}.keyPassword): {}",
                                      keyKey, keyPath, side, ec.message()));
  if (SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
    ERR_clear_error();
    return tlsError(fmt::format("{}: the private key {} does not match the certificate {}", keyKey, keyPath, certPath));
  }
  return {};
}

// Chain verification against `trustPath` (a PEM bundle) or, when empty, the system's CAs.
Result<void> loadTrust(context& ctx, std::string_view key, const std::string& trustPath) {
  asio::error_code ec;
  if (trustPath.empty()) {
    ctx.set_default_verify_paths(ec);
    return {};  // no system CA store: verification simply fails, as Java's default trust manager
  }
  if (auto r = checkReadable(key, trustPath); !r) return r;
  ctx.load_verify_file(trustPath, ec);
  if (ec) return tlsError(fmt::format("{}: cannot load PEM certificates from {}: {}", key, trustPath, ec.message()));
  return {};
}

int acceptAnyCertificate(int, X509_STORE_CTX*) { return 1; }  // Java's InsecureTrustManagerFactory

// need.client.auth: none -> no certificate asked; optional -> asked; require -> handshake fails without one.
void setClientAuth(context& ctx, ClientAuth auth, bool verifyChain) {
  int mode = auth == ClientAuth::None ? SSL_VERIFY_NONE
             : auth == ClientAuth::Optional ? SSL_VERIFY_PEER
                                            : SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  SSL_CTX_set_verify(ctx.native_handle(), mode, verifyChain ? nullptr : acceptAnyCertificate);
}

}  // namespace

std::optional<TlsMode> parseTlsMode(std::string_view text) {
  if (text == "disabled") return TlsMode::Disabled;
  if (text == "permissive") return TlsMode::Permissive;
  if (text == "enforcing") return TlsMode::Enforcing;
  return std::nullopt;
}

std::string_view tlsModeName(TlsMode mode) {
  switch (mode) {
    case TlsMode::Disabled: return "disabled";
    case TlsMode::Enforcing: return "enforcing";
    default: return "permissive";
  }
}

ClientAuth parseClientAuth(std::string_view text) {
  std::string upper;
  for (char c : text) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "OPTIONAL") return ClientAuth::Optional;
  if (upper == "REQUIRE") return ClientAuth::Require;
  return ClientAuth::None;
}

TlsContext::TlsContext(std::unique_ptr<asio::ssl::context> ctx, std::string description)
    : ctx_(std::move(ctx)), description_(std::move(description)) {
  // OpenSSL writes to the socket with write(2), not send(MSG_NOSIGNAL) as asio does: a peer that
  // has gone would kill the process with SIGPIPE instead of failing that one write.
  static std::once_flag once;
  std::call_once(once, [] { std::signal(SIGPIPE, SIG_IGN); });
}
TlsContext::~TlsContext() = default;
void* TlsContext::nativeHandle() const { return ctx_->native_handle(); }

Result<TlsContextPtr> makeServerTlsContext(const TlsServerSettings& s) {
  auto ctx = std::make_unique<context>(context::tls_server);
  commonSetup(*ctx);
  SSL_CTX_set_num_tickets(ctx->native_handle(), 0);  // RocketMQ clients do not resume sessions
  std::string description;
  if (s.testMode && s.certPath.empty() && s.keyPath.empty()) {
    auto made = useSelfSignedCertificate(ctx->native_handle());
    if (!made) return made.error();
    setClientAuth(*ctx, ClientAuth::Optional, false);  // as Java's test mode
    return std::make_shared<const TlsContext>(std::move(ctx), "self-signed test certificate (tls.test.mode.enable)");
  }
  if (auto r = loadKeyPair(*ctx, "tls.server", s.certPath, s.keyPath, s.keyPassword); !r) return r.error();
  if (s.authClient)
    if (auto r = loadTrust(*ctx, "tls.server.trustCertPath", s.trustCertPath); !r) return r.error();
  setClientAuth(*ctx, s.clientAuth, s.authClient);
  description = fmt::format("certificate {}", s.certPath);
  return std::make_shared<const TlsContext>(std::move(ctx), std::move(description));
}

Result<TlsContextPtr> makeClientTlsContext(const TlsClientSettings& s) {
  auto ctx = std::make_unique<context>(context::tls_client);
  commonSetup(*ctx);
  bool verify = !s.testMode && s.authServer;
  if (!s.testMode && (!s.certPath.empty() || !s.keyPath.empty()))
    if (auto r = loadKeyPair(*ctx, "tls.client", s.certPath, s.keyPath, s.keyPassword); !r) return r.error();
  if (verify)
    if (auto r = loadTrust(*ctx, "tls.client.trustCertPath", s.trustCertPath); !r) return r.error();
  SSL_CTX_set_verify(ctx->native_handle(), verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nullptr);
  std::string description = verify ? "server certificate verified" : "any server certificate trusted";
  return std::make_shared<const TlsContext>(std::move(ctx), std::move(description));
}

}  // namespace rmq::net
