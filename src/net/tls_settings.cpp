#include "net/tls_settings.h"

namespace rmq::net {

TlsMode tlsMode(const config::TlsConfig& c) { return parseTlsMode(c.serverMode).value_or(TlsMode::Permissive); }

TlsServerSettings serverTlsSettings(const config::TlsConfig& c) {
  TlsServerSettings s;
  s.testMode = c.testModeEnable;
  s.certPath = c.serverCertPath;
  s.keyPath = c.serverKeyPath;
  s.keyPassword = c.serverKeyPassword;
  s.clientAuth = parseClientAuth(c.serverNeedClientAuth);
  s.authClient = c.serverAuthClient;
  s.trustCertPath = c.serverTrustCertPath;
  return s;
}

TlsClientSettings clientTlsSettings(const config::TlsConfig& c) {
  TlsClientSettings s;
  s.testMode = c.testModeEnable;
  s.certPath = c.clientCertPath;
  s.keyPath = c.clientKeyPath;
  s.keyPassword = c.clientKeyPassword;
  s.authServer = c.clientAuthServer;
  s.trustCertPath = c.clientTrustCertPath;
  return s;
}

}  // namespace rmq::net
