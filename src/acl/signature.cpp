#include "acl/signature.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <vector>

namespace rmq::acl {

std::string hmacSha1Base64(std::string_view data, std::string_view key) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int macLen = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &macLen);
  std::string out(4 * ((macLen + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), mac, static_cast<int>(macLen));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::string signedContent(const net::RemotingCommand& cmd, bool brokerSide) {
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
  std::string content;
  size_t size = cmd.bodySize();
  for (auto* kv : fields) size += kv->second.size();
  content.reserve(size);
  const std::string* last = nullptr;
  for (auto* kv : fields) {
    if (last && *last == kv->first) continue;  // a TreeMap holds each key once (the first decoded)
    content += kv->second;
    last = &kv->first;
  }
  content += cmd.body;
  for (const auto& seg : cmd.bodySegments) content.append(seg.data, seg.size);
  return content;
}

void signRequest(net::RemotingCommand& cmd, const SessionCredentials& credentials) {
  cmd.extFields.set(std::string(kAccessKey), credentials.accessKey);
  if (!credentials.securityToken.empty())
    cmd.extFields.set(std::string(kSecurityToken), credentials.securityToken);
  cmd.extFields.set(std::string(kSignature), hmacSha1Base64(signedContent(cmd, false), credentials.secretKey));
}

}  // namespace rmq::acl
