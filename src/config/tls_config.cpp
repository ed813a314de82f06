#include "config/tls_config.h"

#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

#include "config/config_loader.h"

namespace rmq::config {

namespace {

// A key by its Java name, also accepted without "tls." (a `[tls]` TOML table, or `tls.` taken as
// the section prefix of a properties key).
FieldInfo key(std::string_view name, std::string_view description, std::vector<std::string_view> choices = {}) {
  return FieldInfo{.name = name, .description = description, .choices = std::move(choices),
                   .aliases = {name.substr(4)}};
}

}  // namespace

void TlsConfig::visit(FieldVisitor& v) {
  v.field(key("tls.server.mode",
              "Remoting ports: disabled (plaintext only), permissive (TLS or plaintext, by the first byte), "
              "enforcing (TLS only)",
              {"disabled", "permissive", "enforcing"}),
          serverMode);
  auto enableKey = key("tls.enable", "The broker's own connections (registration with the name servers) use TLS");
  enableKey.aliases.push_back("useTLS");  // Java NettyClientConfig.useTLS (broker config file), default tls.enable
  v.field(enableKey, enable);
  v.field(key("tls.config.file",
              "Java-style tls.properties; when it exists its tls.* values win (but not tls.server.mode, tls.enable)"),
          configFile);
  v.field(key("tls.test.mode.enable",
              "Test mode: a server without a certificate makes a self-signed one at start; a client trusts any "
              "server"),
          testModeEnable);
  v.field(key("tls.server.need.client.auth", "Client certificate: none, optional or require",
              {"none", "optional", "require"}),
          serverNeedClientAuth);
  v.field(key("tls.server.keyPath", "Server private key (PEM, PKCS#8 or traditional)"), serverKeyPath);
  v.field(key("tls.server.keyPassword", "Password of an encrypted tls.server.keyPath"), serverKeyPassword);
  v.field(key("tls.server.certPath", "Server certificate chain (PEM)"), serverCertPath);
  v.field(key("tls.server.authClient", "Verify a client certificate's chain (else any certificate is accepted)"),
          serverAuthClient);
  v.field(key("tls.server.trustCertPath", "CA certificates (PEM) for tls.server.authClient; empty = the system's"),
          serverTrustCertPath);
  v.field(key("tls.client.keyPath", "Client private key (PEM), for servers that ask for one"), clientKeyPath);
  v.field(key("tls.client.keyPassword", "Password of an encrypted tls.client.keyPath"), clientKeyPassword);
  v.field(key("tls.client.certPath", "Client certificate chain (PEM)"), clientCertPath);
  v.field(key("tls.client.authServer",
              "Verify the server's chain (outside test mode; else any certificate is trusted)"),
          clientAuthServer);
  v.field(key("tls.client.trustCertPath", "CA certificates (PEM) for tls.client.authServer; empty = the system's"),
          clientTrustCertPath);
}

namespace {

// Java Boolean.parseBoolean: "true" in any case is true, anything else false.
bool javaBoolean(const std::string& text) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "true";
}

}  // namespace

Result<std::string> TlsConfig::readConfigFile() {
  struct stat st{};
  if (configFile.empty() || ::stat(configFile.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::string();
  std::ifstream in(configFile, std::ios::binary);
  if (!in) return makeError(1, fmt::format("tls.config.file: cannot read {}", configFile));
  std::stringstream text;
  text << in.rdbuf();
  auto entries = parseProperties(text.str(), configFile);
  if (!entries) return entries.error();
  // Java's extractTlsConfigFromFile: these keys only; the others (and unknown ones) are not read.
  for (const auto& e : *entries) {
    const std::string& k = e.key;
    const std::string& value = e.value.text;
    if (k == "tls.test.mode.enable") testModeEnable = javaBoolean(value);
    else if (k == "tls.server.need.client.auth") serverNeedClientAuth = value;
    else if (k == "tls.server.keyPath") serverKeyPath = value;
    else if (k == "tls.server.keyPassword") serverKeyPassword = value;
    else if (k == "tls.server.certPath") serverCertPath = value;
    else if (k == "tls.server.authClient") serverAuthClient = javaBoolean(value);
    else if (k == "tls.server.trustCertPath") serverTrustCertPath = value;
    else if (k == "tls.client.keyPath") clientKeyPath = value;
    else if (k == "tls.client.keyPassword") clientKeyPassword = value;
    else if (k == "tls.client.certPath") clientCertPath = value;
    else if (k == "tls.client.authServer") clientAuthServer = javaBoolean(value);
    else if (k == "tls.client.trustCertPath") clientTrustCertPath = value;
  }
  return configFile;
}

}  // namespace rmq::config
