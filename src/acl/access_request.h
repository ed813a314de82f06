#pragma once
// What one request asks for (Java PlainAccessValidator.parse): the caller's IP, AccessKey,
// Signature, the signed content, and the resources each request code touches with the
// permission it needs (groups as "%RETRY%<group>").
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "acl/signature.h"
#include "net/remoting_command.h"

namespace rmq::acl {

struct AccessRequest {
  std::string ip;  // remote address without the port
  int code = 0;
  std::optional<std::string> accessKey;
  std::optional<std::string> signature;
  SignedParts content;  // signedParts(cmd, brokerSide = true): views into the request's body
  // Resources in Java's HashMap iteration order (the order checkPerm reports the first failure);
  // a resource named twice keeps its first position and the last permission.
  std::vector<std::pair<std::string, uint8_t>> resources;
  void add(std::string resource, uint8_t perm);
};

// Either the request's resources, or the text of the failure (a header lacking a required field,
// a heartbeat body that does not parse): Java wraps that in an AclException thrown from parse().
struct ParsedAccess {
  AccessRequest request;
  std::optional<std::string> error;
};
// The result refers to `cmd`'s body: use it while `cmd` lives.
ParsedAccess parseAccess(const net::RemotingCommand& cmd, const std::string& remoteAddr);

// Java's String.hashCode-based HashMap order for a set of keys (exposed for tests).
void sortLikeJavaHashMap(std::vector<std::pair<std::string, uint8_t>>& entries);

}  // namespace rmq::acl
