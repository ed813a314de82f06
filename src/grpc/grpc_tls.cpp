#include "grpc/grpc_tls.h"

#include <openssl/ssl.h>

namespace rmq::grpc {
namespace {

constexpr unsigned char kAlpnH2[] = {2, 'h', '2'};  // ALPN wire format: length-prefixed names

int selectH2(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned int inlen,
             void*) {
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, outlen, kAlpnH2, sizeof kAlpnH2, in, inlen) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

}  // namespace

Result<net::TlsContextPtr> makeGrpcServerTlsContext(const net::TlsServerSettings& settings) {
  auto ctx = net::makeServerTlsContext(settings);
  if (!ctx) return ctx;
  SSL_CTX_set_alpn_select_cb(static_cast<SSL_CTX*>((*ctx)->nativeHandle()), selectH2, nullptr);
  return ctx;
}

Result<net::TlsContextPtr> makeGrpcClientTlsContext(const net::TlsClientSettings& settings) {
  auto ctx = net::makeClientTlsContext(settings);
  if (!ctx) return ctx;
  SSL_CTX_set_alpn_protos(static_cast<SSL_CTX*>((*ctx)->nativeHandle()), kAlpnH2, sizeof kAlpnH2);
  return ctx;
}

}  // namespace rmq::grpc
