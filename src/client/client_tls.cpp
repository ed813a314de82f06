#include "client/client_tls.h"

#include "config/tls_config.h"
#include "net/tls_settings.h"

namespace rmq::client {

Result<net::TlsContextPtr> clientTls(bool enable, const std::string& tlsConfigFile) {
  if (!enable) return net::TlsContextPtr();
  config::TlsConfig tls;
  tls.configFile = tlsConfigFile;
  if (auto read = tls.readConfigFile(); !read) return read.error();
  return net::makeClientTlsContext(net::clientTlsSettings(tls));
}

}  // namespace rmq::client
