#include "net/tls_self_signed.h"

#include <memory>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "common/response_code.h"

namespace rmq::net {
namespace {

struct PkeyFree { void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); } };
struct X509Free { void operator()(X509* x) const { X509_free(x); } };

Error openSslError(const char* step) {
  char text[256] = "unknown error";
  if (unsigned long e = ERR_get_error()) ERR_error_string_n(e, text, sizeof text);
  ERR_clear_error();
  return makeError(ResponseCode::SYSTEM_ERROR, std::string("tls.test.mode.enable: cannot make the self-signed "
                                                           "certificate (") + step + "): " + text);
}

bool setIdentity(X509* cert, EVP_PKEY* key) {
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return false;
  serial[0] &= 0x7f;  // a positive INTEGER
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn(BN_bin2bn(serial, sizeof serial, nullptr), BN_free);
  if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert))) return false;
  X509_set_version(cert, 2);  // v3
  X509_gmtime_adj(X509_getm_notBefore(cert), -24L * 3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 365L * 24 * 3600);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  return X509_set_issuer_name(cert, name) == 1 && X509_set_pubkey(cert, key) == 1 &&
         X509_sign(cert, key, EVP_sha256()) > 0;
}

}  // namespace

Result<void> useSelfSignedCertificate(void* sslCtx) {
  auto* ctx = static_cast<SSL_CTX*>(sslCtx);
  std::unique_ptr<EVP_PKEY, PkeyFree> key(EVP_EC_gen("P-256"));
  if (!key) return openSslError("key");
  std::unique_ptr<X509, X509Free> cert(X509_new());
  if (!cert || !setIdentity(cert.get(), key.get())) return openSslError("certificate");
  if (SSL_CTX_use_certificate(ctx, cert.get()) != 1 || SSL_CTX_use_PrivateKey(ctx, key.get()) != 1)
    return openSslError("install");
  return {};
}

}  // namespace rmq::net
