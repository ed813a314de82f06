#pragma once
// RocketMQ ACL 1.0 request signatures (PROTOCOL.md §12.3; Java AclClientRPCHook, AclUtils,
// AclSigner): Signature = Base64(HMAC-SHA1(secretKey, content)), where content is the values of
// the ext fields sorted by key (Java TreeMap = String.compareTo order) with Signature left out,
// concatenated with no separator, followed by the body bytes. HMAC-SHA1 and Base64 are OpenSSL's.
#include <string>
#include <string_view>
#include <vector>

#include "net/remoting_command.h"

namespace rmq::acl {

inline constexpr std::string_view kAccessKey = "AccessKey";
inline constexpr std::string_view kSignature = "Signature";
inline constexpr std::string_view kSecurityToken = "SecurityToken";
// MixAll.UNIQUE_MSG_QUERY_FLAG: the broker leaves it out of the signed content (the Java client
// does not), as PlainAccessValidator.parse does.
inline constexpr std::string_view kUniqueMsgQueryFlag = "_UNIQUE_KEY_QUERY";

// What a client signs with (Java SessionCredentials).
struct SessionCredentials {
  std::string accessKey;
  std::string secretKey;
  std::string securityToken;  // optional; sent as SecurityToken when not empty
  bool empty() const { return accessKey.empty(); }
};

// Base64 (standard alphabet, '=' padding, no line breaks) of HMAC-SHA1(key, data).
std::string hmacSha1Base64(std::string_view data, std::string_view key);

// What a signature covers, without copying the body: the values of the ext fields sorted by key,
// skipping Signature (and _UNIQUE_KEY_QUERY when `brokerSide`), concatenated; then the body parts
// (owned part + segments, views into `cmd`).
struct SignedParts {
  std::string fields;
  std::vector<std::string_view> body;
};
SignedParts signedParts(const net::RemotingCommand& cmd, bool brokerSide);
// HMAC-SHA1 over parts.fields then each body part, Base64.
std::string signatureOf(const SignedParts& parts, std::string_view key);
// The same bytes in one string (tests, docs).
std::string signedContent(const net::RemotingCommand& cmd, bool brokerSide);

// AclClientRPCHook.doBeforeRequest: sets AccessKey (and SecurityToken), then Signature.
void signRequest(net::RemotingCommand& cmd, const SessionCredentials& credentials);

}  // namespace rmq::acl
