#pragma once
// AclManager: the broker's ACL (Java PlainPermissionManager + AclFileWatchService).
//  * Files: `<home>/conf/plain_acl.yml` (created empty when absent, as Java does) and every
//    *.yml / *.yaml under `<home>/conf/acl/` (recursively). An access key is owned by the first
//    file that defines it (conf/acl/ files sorted by path, then plain_acl.yml).
//  * Reload: a watcher thread reads the files every `pollInterval` and rebuilds the rules when a
//    file's content changes or files come and go. A file that does not parse (or holds a bad
//    entry) is logged with its path and line, and its last good content stays in force.
//  * check(): on network threads; CPU only (one HMAC-SHA1); reads the current rules snapshot.
//  * Admin edits (codes 50/51/53): blocking file writes, for the broker's background thread;
//    they take effect at once (no wait for the watcher).
#include <condition_variable>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "acl/access_request.h"
#include "acl/acl_file.h"
#include "acl/acl_rules.h"
#include "common/result.h"
#include "net/remoting_command.h"

namespace rmq::acl {

class AclManager {
 public:
  AclManager(std::string rocketmqHome, std::chrono::milliseconds pollInterval = std::chrono::seconds(1));
  ~AclManager();
  // Loads every file; an error here (unreadable or malformed file) stops the broker's start-up.
  Result<void> start();
  void stop();

  // nullopt = allowed; else why not (remark() is what the client gets with SYSTEM_ERROR).
  std::optional<AclDenied> check(const net::RemotingCommand& cmd, const std::string& remoteAddr) const;
  // The same rules for a request parsed elsewhere (the 5.x gRPC API's authorization header).
  std::optional<AclDenied> check(const AccessRequest& request) const;

  // UPDATE_AND_CREATE_ACL_CONFIG / DELETE_ACL_CONFIG / UPDATE_GLOBAL_WHITE_ADDRS_CONFIG: an Error
  // carries Java's message (AclException text or the "... has been updated failed." remark).
  Result<void> updateAccount(const AccountConfig& account);
  Result<bool> deleteAccount(const std::string& accessKey);
  Result<bool> updateGlobalWhiteAddrs(const std::vector<std::string>& addrs, std::string file);

  // GET_BROKER_CLUSTER_ACL_INFO: dataVersion of plain_acl.yml and of every file (JSON texts).
  std::string defaultFileVersionJson() const;
  std::string allFileVersionsJson() const;
  // GET_BROKER_CLUSTER_ACL_CONFIG (4.9.4's body): {"globalWhiteAddrs":[...],"plainAccessConfigs":[...]}
  std::string allConfigJson() const;

  const std::string& defaultFile() const { return defaultFile_; }
  bool pollOnce();  // one watcher round (tests); true when the rules changed

 private:
  struct FileState {
    std::string text;  // last content read (good or not)
    std::optional<AclFile> good;  // last content that parsed and compiled
  };
  std::vector<std::string> listFiles() const;
  bool rebuildLocked();  // recompiles from the good files; false (and logs) on a compile error
  // Edits a copy of `path`'s content, writes it (atomically) and puts the result in force; false
  // when `edit` found nothing to change.
  Result<bool> editLocked(const std::string& path, const std::function<bool(AclFile&)>& edit);
  std::string fileOf(const std::string& accessKey) const;  // "" when unknown

  std::string home_, aclDir_, defaultFile_;
  std::chrono::milliseconds pollInterval_;
  mutable std::mutex filesMu_;  // files_, order_ and the admin edits
  std::map<std::string, FileState> files_;
  std::vector<std::string> order_;
  mutable std::mutex rulesMu_;
  std::shared_ptr<const AclRules> rules_;
  std::thread watcher_;
  std::mutex stopMu_;
  std::condition_variable stopCv_;
  bool stopping_ = false;
};

}  // namespace rmq::acl
