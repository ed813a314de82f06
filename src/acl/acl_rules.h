#pragma once
// The compiled ACL of every loaded file (Java PlainPermissionManager's in-memory tables) and the
// check of one request against it (PlainPermissionManager.validate + checkPerm). Immutable once
// built: the broker swaps a whole new AclRules in on reload.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "acl/access_request.h"
#include "acl/acl_file.h"
#include "acl/remote_address.h"
#include "common/result.h"

namespace rmq::acl {

struct AccountRule {  // PlainAccessResource of an account
  std::string accessKey;
  std::string secretKey;
  RemoteAddressPattern whiteRemoteAddress;
  bool admin = false;
  uint8_t defaultTopicPerm = 1;
  uint8_t defaultGroupPerm = 1;
  std::unordered_map<std::string, uint8_t> resourcePerms;  // topics, and groups as %RETRY%<group>
};

// checkPlainAccessConfig + buildPlainAccessResource: Java's AclException text on a bad account.
Result<AccountRule> buildAccountRule(const AccountConfig& account);

struct AclRules {
  std::vector<RemoteAddressPattern> globalWhites;
  std::unordered_map<std::string, AccountRule> accounts;
  std::unordered_map<std::string, std::string> fileOfAccessKey;  // accessKey -> file path
};

// Builds the rules of files in load order (an access key defined again in a later file is
// ignored, as Java does). Fails on the first bad entry, naming the file.
Result<std::shared_ptr<const AclRules>> compileRules(const std::vector<const AclFile*>& files);

// Why a request is refused, as Java's AclException: `message` and the stack frame that threw.
struct AclDenied {
  std::string message;
  std::string frame;  // e.g. "org.apache.rocketmq.acl.plain.PlainPermissionManager.validate(PlainPermissionManager.java:684)"
  // RemotingHelper.exceptionSimpleDesc: what the client reads as the remark of SYSTEM_ERROR (1).
  std::string remark() const;
};

std::optional<AclDenied> validate(const AclRules& rules, const AccessRequest& request);
// An AclException thrown from PlainAccessValidator.parse (bad header / heartbeat body).
AclDenied parseFailure(const std::string& message);

}  // namespace rmq::acl
