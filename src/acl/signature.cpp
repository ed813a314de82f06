#include "acl/signature.h"

#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

#include <algorithm>
#include <vector>

namespace rmq::acl {

namespace {
std::string base64(const unsigned char* data, size_t len) {
  std::string out(4 * ((len + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(len));
  out.resize(static_cast<size_t>(n));
  return out;
}
}  // namespace

std::string hmacSha1Base64(std::string_view data, std::string_view key) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int macLen = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &macLen);
  return base64(mac, macLen);
}

SignedParts signedParts(const net::RemotingCommand& cmd, bool brokerSide) {
  // Keys are compared as Java Strings (UTF-16 code units); for the ASCII keys of every RocketMQ
  // header byte order is the same order.
  std::vector<const std::pair<std::string, std::string>*> fields;
  fields.reserve(cmd.extFields.size());
  for (const auto& kv : cmd.extFields) {
    if (kv.first == kSignature) continue;
    if (brokerSide && kv.first == kUniqueMsgQueryFlag) continue;
    fields.push_back(&kv);
  }
  std::stable_sort(fields.begin(), fields.end(), [](auto* a, auto* b) { return a->first < b->first; });
  SignedParts out;
  size_t size = 0;
  for (auto* kv : fields) size += kv->second.size();
  out.fields.reserve(size);
  const std::string* last = nullptr;
  for (auto* kv : fields) {
    if (last && *last == kv->first) continue;  // a TreeMap holds each key once (the first decoded)
    out.fields += kv->second;
    last = &kv->first;
  }
  if (!cmd.body.empty()) out.body.emplace_back(cmd.body);
  for (const auto& seg : cmd.bodySegments) out.body.emplace_back(seg.data, seg.size);
  return out;
}

std::string signedContent(const net::RemotingCommand& cmd, bool brokerSide) {
  auto parts = signedParts(cmd, brokerSide);
  for (auto b : parts.body) parts.fields.append(b);
  return parts.fields;
}

std::string signatureOf(const SignedParts& parts, std::string_view key) {
  if (parts.body.empty()) return hmacSha1Base64(parts.fields, key);
  // Streams the body into the MAC: a send's body is hashed where it lies, never copied.
  static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  char digest[] = "SHA1";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end()};
  EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params);
  EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(parts.fields.data()), parts.fields.size());
  for (auto b : parts.body) EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(b.data()), b.size());
  unsigned char out[EVP_MAX_MD_SIZE];
  size_t outLen = 0;
  EVP_MAC_final(ctx, out, &outLen, sizeof out);
  EVP_MAC_CTX_free(ctx);
  return base64(out, outLen);
}

void signRequest(net::RemotingCommand& cmd, const SessionCredentials& credentials) {
  cmd.extFields.set(std::string(kAccessKey), credentials.accessKey);
  if (!credentials.securityToken.empty())
    cmd.extFields.set(std::string(kSecurityToken), credentials.securityToken);
  cmd.extFields.set(std::string(kSignature), signatureOf(signedParts(cmd, false), credentials.secretKey));
}

}  // namespace rmq::acl
