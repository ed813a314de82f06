#include "acl/acl_rules.h"

#include <fmt/format.h>

#include "acl/permission.h"
#include "acl/signature.h"
#include "acl/acl_error.h"
#include "acl/text_util.h"
#include "common/response_code.h"

namespace rmq::acl {
namespace {

constexpr std::string_view kTraceTopic = "RMQ_SYS_TRACE_TOPIC";
// Lines of 4.9.8's PlainPermissionManager.java / PlainAccessValidator.java where each
// AclException is thrown; the client sees them in the remark.
constexpr int kLineAdmin = 581, kLineDefaultPerm = 606, kLinePerm = 611;
constexpr int kLineNoAccessKey = 664, kLineNoAcl = 668, kLineSignature = 684, kLineParse = 134;

AclDenied denied(std::string message, const char* method, int line) {
  return {std::move(message), fmt::format("org.apache.rocketmq.acl.plain.PlainPermissionManager.{}"
                                          "(PlainPermissionManager.java:{})", method, line)};
}

std::string javaString(const std::optional<std::string>& s) { return s ? *s : "null"; }

// Permission.parseResourcePerms
Result<void> addResourcePerms(AccountRule& rule, bool isTopic, const std::optional<std::vector<std::string>>& list) {
  if (!list) return {};
  for (const auto& entry : *list) {
    auto items = splitNonEmpty(entry, '=');
    if (items.size() != 2)
      return aclError(fmt::format("Parse resource permission failed for {}:{}", isTopic ? "topic" : "group", entry));
    std::string name(trim(items[0]));
    rule.resourcePerms[isTopic ? name : retryTopic(name)] = parsePerm(trim(items[1]));
  }
  return {};
}

std::string printResource(const std::string& resource, bool isGroup) {
  if (isGroup) return "group:" + resource.substr(kRetryGroupTopicPrefix.size());
  return "topic:" + resource;
}

std::optional<AclDenied> checkPerm(const AccessRequest& need, const AccountRule& owned) {
  if (needAdminPerm(need.code) && !owned.admin)
    return denied(fmt::format("Need admin permission for request code={}, but accessKey={} is not", need.code,
                              owned.accessKey), "checkPerm", kLineAdmin);
  if (need.resources.empty()) return std::nullopt;
  if (owned.resourcePerms.empty() && owned.admin) return std::nullopt;
  for (const auto& [resource, perm] : need.resources) {
    bool isGroup = isRetryTopic(resource);
    auto it = owned.resourcePerms.find(resource);
    if (it == owned.resourcePerms.end()) {
      if (!checkPermission(perm, isGroup ? owned.defaultGroupPerm : owned.defaultTopicPerm))
        return denied("No default permission for " + printResource(resource, isGroup), "checkPerm", kLineDefaultPerm);
      continue;
    }
    if (!checkPermission(perm, it->second))
      return denied("No default permission for " + printResource(resource, isGroup), "checkPerm", kLinePerm);
  }
  return std::nullopt;
}

}  // namespace

std::string AclDenied::remark() const {
  return "org.apache.rocketmq.acl.common.AclException" + (message.empty() ? "" : ": " + message) + ", " + frame;
}

AclDenied parseFailure(const std::string& message) {
  return {message, fmt::format("org.apache.rocketmq.acl.plain.PlainAccessValidator.parse(PlainAccessValidator.java:{})",
                               kLineParse)};
}

Result<AccountRule> buildAccountRule(const AccountConfig& a) {
  if (a.accessKey.empty() || !a.secretKey || a.accessKey.size() <= 6 || a.secretKey->size() <= 6)
    return aclError(fmt::format("The accessKey={} and secretKey={} cannot be null and length should longer than 6",
                                a.accessKey.empty() ? "null" : a.accessKey, javaString(a.secretKey)));
  AccountRule rule;
  rule.accessKey = a.accessKey;
  rule.secretKey = *a.secretKey;
  rule.admin = a.admin;
  rule.defaultGroupPerm = a.defaultGroupPerm ? parsePerm(*a.defaultGroupPerm) : Perm::DENY;
  rule.defaultTopicPerm = a.defaultTopicPerm ? parsePerm(*a.defaultTopicPerm) : Perm::DENY;
  if (auto r = addResourcePerms(rule, false, a.groupPerms); !r) return r.error();
  if (auto r = addResourcePerms(rule, true, a.topicPerms); !r) return r.error();
  auto white = RemoteAddressPattern::parse(a.whiteRemoteAddress.value_or(""));
  if (!white) return white.error();
  rule.whiteRemoteAddress = std::move(*white);
  return rule;
}

Result<std::shared_ptr<const AclRules>> compileRules(const std::vector<const AclFile*>& files) {
  auto rules = std::make_shared<AclRules>();
  for (const AclFile* file : files) {
    for (const auto& w : file->globalWhiteRemoteAddresses) {
      auto p = RemoteAddressPattern::parse(w);
      if (!p) return aclError(file->path + ": globalWhiteRemoteAddresses: " + p.error().message);
      rules->globalWhites.push_back(std::move(*p));
    }
    for (const auto& account : file->accounts) {
      auto rule = buildAccountRule(account);
      if (!rule) return aclError(file->path + ": " + rule.error().message);
      if (rules->fileOfAccessKey.count(rule->accessKey)) continue;  // first file wins
      rules->fileOfAccessKey[rule->accessKey] = file->path;
      std::string key = rule->accessKey;
      rules->accounts.emplace(std::move(key), std::move(*rule));
    }
  }
  return std::shared_ptr<const AclRules>(std::move(rules));
}

std::optional<AclDenied> validate(const AclRules& rules, const AccessRequest& req) {
  for (const auto& w : rules.globalWhites)
    if (w.match(req.ip)) return std::nullopt;
  if (!req.accessKey) return denied("No accessKey is configured", "validate", kLineNoAccessKey);
  auto it = rules.accounts.find(*req.accessKey);
  if (it == rules.accounts.end()) return denied("No acl config for " + *req.accessKey, "validate", kLineNoAcl);
  const AccountRule& owned = it->second;
  if (owned.whiteRemoteAddress.match(req.ip)) return std::nullopt;
  if (!req.signature || signatureOf(req.content, owned.secretKey) != *req.signature)
    return denied("Check signature failed for accessKey=" + *req.accessKey, "validate", kLineSignature);
  for (const auto& [resource, perm] : req.resources)
    if (resource == kTraceTopic && perm == Perm::PUB) return std::nullopt;
  return checkPerm(req, owned);
}

}  // namespace rmq::acl
