#pragma once
// One ACL yml file (plain_acl.yml or a file under conf/acl/): what it says, parsed with yaml-cpp,
// and the edits the ACL admin codes make to it (Java PlainPermissionManager's file side). A file
// is kept as its YAML tree so an edit rewrites it the way Java's snakeyaml dumpAsMap does: the
// whole map, other keys kept, `dataVersion` bumped.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace rmq::acl {

// PlainAccessConfig: an account as the file (or an admin request) states it.
struct AccountConfig {
  std::string accessKey;
  std::optional<std::string> secretKey;
  std::optional<std::string> whiteRemoteAddress;
  bool admin = false;
  std::optional<std::string> defaultTopicPerm;
  std::optional<std::string> defaultGroupPerm;
  std::optional<std::vector<std::string>> topicPerms;  // "topicA=PUB"
  std::optional<std::vector<std::string>> groupPerms;  // "groupA=SUB"
};

struct AclDataVersion {
  int64_t counter = 0;
  int64_t timestamp = 0;
  std::string toJson() const;  // fastjson's DataVersion: {"counter":N,"timestamp":T}
};

struct AclFile {
  std::string path;
  std::vector<std::string> globalWhiteRemoteAddresses;
  std::vector<AccountConfig> accounts;
  AclDataVersion dataVersion;  // first element of `dataVersion`, else {0, load time}
  YAML::Node root;             // the whole document (a map; null for an empty file)
};

// Parses yml text; an error names the file and yaml-cpp's line/column.
Result<AclFile> parseAclFile(const std::string& path, const std::string& text, int64_t nowMs);

// Edits (in `file.root`); each bumps dataVersion (counter + 1, timestamp now) like
// updateAclConfigFileVersion. Return false when the access key is not in the file (delete).
void upsertAccount(AclFile& file, const AccountConfig& account, int64_t nowMs);
bool deleteAccount(AclFile& file, const std::string& accessKey, int64_t nowMs);
void setGlobalWhiteAddresses(AclFile& file, const std::vector<std::string>& addrs, int64_t nowMs);
// The YAML text of file.root.
std::string emitAclFile(const AclFile& file);

}  // namespace rmq::acl
