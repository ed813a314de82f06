#pragma once
// The TLS settings of the net layer (tls_context.h) from the config keys (config/tls_config.h):
// node start-up and the client library build their contexts with these.
#include "config/tls_config.h"
#include "net/tls_context.h"

namespace rmq::net {

TlsMode tlsMode(const config::TlsConfig& c);  // serverMode (validated by the loader's choices)
TlsServerSettings serverTlsSettings(const config::TlsConfig& c);
TlsClientSettings clientTlsSettings(const config::TlsConfig& c);

}  // namespace rmq::net
