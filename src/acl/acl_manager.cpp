#include "acl/acl_manager.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <fmt/format.h>

#include "acl/permission.h"
#include "common/file_write.h"
#include "common/json.h"
#include "common/log.h"
#include "common/response_code.h"
#include "common/wall_clock.h"

namespace rmq::acl {
namespace fs = std::filesystem;
namespace {

Error failed(std::string message) { return makeError(ResponseCode::SYSTEM_ERROR, std::move(message)); }

void writeStringArray(json::Writer& w, const std::vector<std::string>& items) {
  w.StartArray();
  for (const auto& s : items) w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
  w.EndArray();
}

}  // namespace

AclManager::AclManager(std::string home, std::chrono::milliseconds pollInterval)
    : home_(std::move(home)), pollInterval_(pollInterval) {
  aclDir_ = (fs::path(home_) / "conf" / "acl").string();
  defaultFile_ = (fs::path(home_) / "conf" / "plain_acl.yml").string();
}

AclManager::~AclManager() { stop(); }

std::vector<std::string> AclManager::listFiles() const {
  std::vector<std::string> out;
  std::error_code ec;
  if (fs::is_directory(aclDir_, ec)) {
    for (auto it = fs::recursive_directory_iterator(aclDir_, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      auto p = it->path().string();
      if (p.ends_with(".yml") || p.ends_with(".yaml")) out.push_back(p);
    }
    std::sort(out.begin(), out.end());
  }
  if (fs::exists(defaultFile_, ec) && std::find(out.begin(), out.end(), defaultFile_) == out.end())
    out.push_back(defaultFile_);
  return out;
}

Result<void> AclManager::start() {
  std::error_code ec;
  fs::create_directories(fs::path(defaultFile_).parent_path(), ec);
  if (!fs::exists(defaultFile_, ec)) {  // Java's assureAclConfigFilesExist
    std::ofstream create(defaultFile_);
    if (!create) return failed("cannot create " + defaultFile_);
  }
  {
    std::lock_guard lk(filesMu_);
    order_ = listFiles();
    for (const auto& path : order_) {
      auto text = readWholeFile(path);
      if (!text) return failed("cannot read ACL file " + path);
      auto parsed = parseAclFile(path, *text, nowMillis());
      if (!parsed) return parsed.error();
      files_[path] = FileState{*text, std::move(*parsed)};
    }
    std::vector<const AclFile*> list;
    for (const auto& p : order_) list.push_back(&*files_[p].good);
    auto rules = compileRules(list);
    if (!rules) return rules.error();
    std::lock_guard rl(rulesMu_);
    rules_ = std::move(*rules);
  }
  log::info("ACL: {} file(s) loaded under {} ({} account(s))", order_.size(), home_, rules_->accounts.size());
  watcher_ = std::thread([this] {
    std::unique_lock lk(stopMu_);
    while (!stopCv_.wait_for(lk, pollInterval_, [this] { return stopping_; })) {
      lk.unlock();
      pollOnce();
      lk.lock();
    }
  });
  return {};
}

void AclManager::stop() {
  {
    std::lock_guard lk(stopMu_);
    stopping_ = true;
  }
  stopCv_.notify_all();
  if (watcher_.joinable()) watcher_.join();
}

bool AclManager::pollOnce() {
  std::lock_guard lk(filesMu_);
  auto list = listFiles();
  bool changed = list != order_;
  std::map<std::string, FileState> next;
  for (const auto& path : list) {
    auto text = readWholeFile(path);
    auto old = files_.find(path);
    FileState state = old != files_.end() ? old->second : FileState{};
    if (text && (old == files_.end() || *text != state.text)) {
      state.text = *text;  // remembered even when bad: the error is logged once per content
      auto parsed = parseAclFile(path, *text, nowMillis());
      if (parsed) {
        state.good = std::move(*parsed);
        changed = true;
      } else {
        log::error("ACL: {}; the last good content of that file stays in force", parsed.error().message);
      }
    }
    next[path] = std::move(state);
  }
  auto saved = std::move(files_);
  files_ = std::move(next);
  order_ = std::move(list);
  if (!changed || rebuildLocked()) return changed;
  // A bad entry (e.g. a malformed address pattern): the rules in force stay; so do the previous
  // good contents, while the new texts are remembered (not reported again every round).
  for (auto& [path, st] : files_) {
    auto it = saved.find(path);
    st.good = it != saved.end() ? it->second.good : std::nullopt;
  }
  return false;
}

bool AclManager::rebuildLocked() {
  std::vector<const AclFile*> list;
  for (const auto& p : order_)
    if (auto it = files_.find(p); it != files_.end() && it->second.good) list.push_back(&*it->second.good);
  auto rules = compileRules(list);
  if (!rules) {
    log::error("ACL: {}; the previous ACL stays in force", rules.error().message);
    return false;
  }
  log::info("ACL: reloaded {} file(s), {} account(s)", order_.size(), (*rules)->accounts.size());
  std::lock_guard rl(rulesMu_);
  rules_ = std::move(*rules);
  return true;
}

std::optional<AclDenied> AclManager::check(const net::RemotingCommand& cmd, const std::string& remoteAddr) const {
  std::shared_ptr<const AclRules> rules;
  {
    std::lock_guard rl(rulesMu_);
    rules = rules_;
  }
  auto parsed = parseAccess(cmd, remoteAddr);
  if (parsed.error) {
    // Java's parse() throws before validate() looks at the global white list.
    return parseFailure(*parsed.error);
  }
  return validate(*rules, parsed.request);
}

std::optional<AclDenied> AclManager::check(const AccessRequest& request) const {
  std::shared_ptr<const AclRules> rules;
  {
    std::lock_guard rl(rulesMu_);
    rules = rules_;
  }
  return validate(*rules, request);
}

Result<bool> AclManager::editLocked(const std::string& path, const std::function<bool(AclFile&)>& edit) {
  auto& state = files_[path];
  if (!state.good) {  // a file not loaded yet (empty plain_acl.yml)
    state.good = AclFile{};
    state.good->path = path;
    if (std::find(order_.begin(), order_.end(), path) == order_.end()) order_.push_back(path);
  }
  AclFile edited = *state.good;
  edited.root = YAML::Clone(state.good->root);
  if (!edit(edited)) return false;
  std::string text = emitAclFile(edited);
  auto reparsed = parseAclFile(path, text, nowMillis());
  if (!reparsed) return reparsed.error();
  reparsed->dataVersion = edited.dataVersion;
  if (auto r = replaceFileAtomically(path, text); !r) return failed(r.error().message);
  state.text = std::move(text);  // the watcher sees no change to reload
  state.good = std::move(*reparsed);
  rebuildLocked();
  return true;
}

std::string AclManager::fileOf(const std::string& accessKey) const {
  std::lock_guard rl(rulesMu_);
  auto it = rules_->fileOfAccessKey.find(accessKey);
  return it == rules_->fileOfAccessKey.end() ? std::string() : it->second;
}

Result<void> AclManager::updateAccount(const AccountConfig& account) {
  // Java's order: checkPlainAccessConfig, checkResourcePerms (topics, groups), then the account.
  if (auto rule = buildAccountRule(account); !rule && rule.error().message.starts_with("The accessKey="))
    return rule.error();
  for (auto* list : {&account.topicPerms, &account.groupPerms})
    if (*list)
      for (const auto& e : **list)
        if (auto msg = checkResourcePerm(e); !msg.empty()) return failed(msg);
  if (auto rule = buildAccountRule(account); !rule) return rule.error();
  std::lock_guard lk(filesMu_);
  std::string path = fileOf(account.accessKey);
  auto r = editLocked(path.empty() ? defaultFile_ : path, [&](AclFile& f) {
    upsertAccount(f, account, nowMillis());
    return true;
  });
  if (!r) return r.error();
  return {};
}

Result<bool> AclManager::deleteAccount(const std::string& accessKey) {
  if (accessKey.empty()) return false;
  std::lock_guard lk(filesMu_);
  std::string path = fileOf(accessKey);
  if (path.empty()) return false;
  return editLocked(path, [&](AclFile& f) { return acl::deleteAccount(f, accessKey, nowMillis()); });
}

Result<bool> AclManager::updateGlobalWhiteAddrs(const std::vector<std::string>& addrs, std::string path) {
  if (path.empty()) path = defaultFile_;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;  // Java: "not exist or is a directory"
  if (!path.starts_with(home_)) return false;        // Java: "not in the directory rocketmq.home.dir"
  for (const auto& a : addrs)
    if (auto p = RemoteAddressPattern::parse(a); !p) return p.error();
  std::lock_guard lk(filesMu_);
  return editLocked(path, [&](AclFile& f) {
    setGlobalWhiteAddresses(f, addrs, nowMillis());
    return true;
  });
}

std::string AclManager::defaultFileVersionJson() const {
  std::lock_guard lk(filesMu_);
  auto it = files_.find(defaultFile_);
  return it != files_.end() && it->second.good ? it->second.good->dataVersion.toJson() : AclDataVersion{}.toJson();
}

std::string AclManager::allFileVersionsJson() const {
  std::lock_guard lk(filesMu_);
  std::string out = "{";
  for (const auto& p : order_) {
    auto it = files_.find(p);
    if (it == files_.end() || !it->second.good) continue;
    if (out.size() > 1) out += ',';
    json::appendQuoted(out, p);
    out += ':' + it->second.good->dataVersion.toJson();
  }
  return out + "}";
}

std::string AclManager::allConfigJson() const {
  std::lock_guard lk(filesMu_);
  json::Buffer buf;
  json::Writer w(buf);
  std::vector<std::string> whites;
  std::vector<const AccountConfig*> accounts;
  std::vector<std::string> seen;
  for (const auto& p : order_) {
    auto it = files_.find(p);
    if (it == files_.end() || !it->second.good) continue;
    const auto& f = *it->second.good;
    whites.insert(whites.end(), f.globalWhiteRemoteAddresses.begin(), f.globalWhiteRemoteAddresses.end());
    for (const auto& a : f.accounts)
      if (std::find(seen.begin(), seen.end(), a.accessKey) == seen.end()) {
        seen.push_back(a.accessKey);
        accounts.push_back(&a);
      }
  }
  auto optField = [&](const char* key, const std::optional<std::string>& v) {
    if (!v) return;
    w.Key(key);
    w.String(v->c_str(), static_cast<rapidjson::SizeType>(v->size()));
  };
  w.StartObject();  // fastjson: keys in alphabetical order, nulls left out
  w.Key("globalWhiteAddrs");
  writeStringArray(w, whites);
  w.Key("plainAccessConfigs");
  w.StartArray();
  for (const auto* a : accounts) {
    w.StartObject();
    w.Key("accessKey");
    w.String(a->accessKey.c_str(), static_cast<rapidjson::SizeType>(a->accessKey.size()));
    w.Key("admin");
    w.Bool(a->admin);
    optField("defaultGroupPerm", a->defaultGroupPerm);
    optField("defaultTopicPerm", a->defaultTopicPerm);
    if (a->groupPerms) { w.Key("groupPerms"); writeStringArray(w, *a->groupPerms); }
    optField("secretKey", a->secretKey);
    if (a->topicPerms) { w.Key("topicPerms"); writeStringArray(w, *a->topicPerms); }
    optField("whiteRemoteAddress", a->whiteRemoteAddress);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace rmq::acl
