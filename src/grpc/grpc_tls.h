#pragma once
// TLS contexts of the gRPC port and of the gRPC client: the remoting ones (net/tls_context.h:
// same settings, same self-signed test certificate) plus ALPN "h2", which gRPC clients require
// (grpc-java and grpc-go refuse a TLS server that does not select h2). The remoting contexts
// stay without ALPN.
#include "common/result.h"
#include "net/tls_context.h"

namespace rmq::grpc {

// Selects "h2" when the client offers it; a client offering ALPN without h2 fails the handshake
// (no_application_protocol); a client offering no ALPN at all is served.
Result<net::TlsContextPtr> makeGrpcServerTlsContext(const net::TlsServerSettings& settings);
// Offers "h2" (test mode by default: any server certificate is accepted).
Result<net::TlsContextPtr> makeGrpcClientTlsContext(const net::TlsClientSettings& settings = {});

}  // namespace rmq::grpc
