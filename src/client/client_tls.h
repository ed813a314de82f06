#pragma once
// The client side of Java's TLS switches, for programs built on the client library (rmqadmin,
// rmqbench, the console): Java's clients use TLS when -Dtls.enable=true, with tls.test.mode.enable
// and the tls.client.* keys read from tls.config.file (default /etc/rocketmq/tls.properties,
// skipped when missing). Test mode (the default) trusts any server certificate, as Java.
#include <string>

#include "common/result.h"
#include "net/tls_context.h"

namespace rmq::client {

// Null when !enable; else the context, or an error naming the key at fault.
Result<net::TlsContextPtr> clientTls(bool enable, const std::string& tlsConfigFile = "/etc/rocketmq/tls.properties");

}  // namespace rmq::client
