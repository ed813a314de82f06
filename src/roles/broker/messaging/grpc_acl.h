#pragma once
// ACL of the 5.x API: the `authorization` metadata
//   MQv2-HMAC-SHA1 Credential=<accessKey>, SignedHeaders=x-mq-date-time, Signature=<HEX>
// where Signature = upper-hex HMAC-SHA1(secretKey, value of x-mq-date-time), checked against the
// same plain_acl.yml accounts and permissions as remoting requests (acl::AclManager): each RPC
// names the resources it touches with the permission it needs (as the 5.x proxy's
// PlainAccessValidator: QueryRoute topic ANY, SendMessage / EndTransaction / RecallMessage topic
// PUB, Telemetry a producer's topics PUB or a consumer's group and topics SUB, Heartbeat /
// NotifyClientTermination the group SUB).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl_manager.h"
#include "grpc/server_call.h"
#include "roles/broker/messaging/v2_status.h"

namespace rmq::broker::messaging {

struct GrpcCredential {
  std::string accessKey;
  std::string signatureHex;
};
// Parses the authorization value; nullopt when it is not MQv2-HMAC-SHA1 with both fields.
std::optional<GrpcCredential> parseAuthorization(std::string_view value);

using AclResources = std::vector<std::pair<std::string, uint8_t>>;  // name (groups as %RETRY%<g>), acl::perm bits

class GrpcAcl {
 public:
  explicit GrpcAcl(const acl::AclManager* manager) : manager_(manager) {}
  bool enabled() const { return manager_ != nullptr; }
  // nullopt = allowed; else the status to answer (UNAUTHORIZED / FORBIDDEN).
  std::optional<v2::Status> check(const grpc::ServerCall& call, int requestCode, const AclResources& resources) const;

 private:
  const acl::AclManager* manager_;
};

}  // namespace rmq::broker::messaging
