#pragma once
// TLS settings and contexts of the remoting ports and clients (RocketMQ's TlsSystemConfig /
// TlsHelper.buildSslContext semantics). A TlsContext wraps one OpenSSL SSL_CTX (through
// asio::ssl::context), built once at start-up and shared read-only by every connection.
// Errors name the config key at fault (`tls.server.certPath: cannot read /x: ...`).
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace asio::ssl {
class context;
}

namespace rmq::net {

// tls.server.mode: what a server does with the first bytes of a connection (Java TlsMode).
enum class TlsMode { Disabled, Permissive, Enforcing };
std::optional<TlsMode> parseTlsMode(std::string_view text);  // "disabled" | "permissive" | "enforcing"
std::string_view tlsModeName(TlsMode mode);

// tls.server.need.client.auth (Java ClientAuth; anything else is NONE, as TlsHelper.parseClientAuthMode).
enum class ClientAuth { None, Optional, Require };
ClientAuth parseClientAuth(std::string_view text);

struct TlsServerSettings {
  bool testMode = true;            // tls.test.mode.enable: no certificate given -> self-signed one
  std::string certPath, keyPath;   // tls.server.certPath / keyPath (PEM; key PKCS#8 or traditional)
  std::string keyPassword;         // tls.server.keyPassword (encrypted key)
  ClientAuth clientAuth = ClientAuth::None;  // tls.server.need.client.auth
  bool authClient = false;         // tls.server.authClient: verify a client certificate's chain
  std::string trustCertPath;       // tls.server.trustCertPath (empty: the system's CAs)
};

struct TlsClientSettings {
  bool testMode = true;            // tls.test.mode.enable: trust any server certificate
  std::string certPath, keyPath, keyPassword;  // tls.client.*: a client certificate (optional)
  bool authServer = false;         // tls.client.authServer: verify the server's chain
  std::string trustCertPath;       // tls.client.trustCertPath (empty: the system's CAs)
};

class TlsContext {
 public:
  explicit TlsContext(std::unique_ptr<asio::ssl::context> ctx, std::string description);
  ~TlsContext();
  void* nativeHandle() const;  // SSL_CTX*
  // What it is, for the start-up log ("self-signed test certificate", "certificate /x ...").
  const std::string& description() const { return description_; }

 private:
  std::unique_ptr<asio::ssl::context> ctx_;
  std::string description_;
};
using TlsContextPtr = std::shared_ptr<const TlsContext>;

// Java TlsHelper.buildSslContext(false): test mode without a certificate -> a fresh self-signed
// one (EC P-256, CN=localhost), no client certificate asked for; otherwise the given certificate
// and key, client auth as configured.
Result<TlsContextPtr> makeServerTlsContext(const TlsServerSettings& settings);
// Java TlsHelper.buildSslContext(true): test mode or !authServer -> any server certificate is
// accepted; else the chain must verify against trustCertPath (or the system's CAs). Like Java,
// the host name is not checked.
Result<TlsContextPtr> makeClientTlsContext(const TlsClientSettings& settings);

}  // namespace rmq::net
