#include "client/client_tls.h"

#include "config/tls_config.h"

namespace rmq::client {

Result<net::TlsContextPtr> clientTls(bool enable, const std::string& tlsConfigFile) {
  if (!enable) return net::TlsContextPtr();
  config::TlsConfig tls;
  tls.configFile = tlsConfigFile;
  if (auto read = tls.readConfigFile(); !read) return read.error();
  return net::makeClientTlsContext(tls.clientSettings());
}

}  // namespace rmq::client
