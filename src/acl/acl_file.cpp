#include "acl/acl_file.h"

#include <fmt/format.h>

#include "common/response_code.h"

namespace rmq::acl {
namespace {

std::optional<std::string> optString(const YAML::Node& n, const char* key) {
  auto v = n[key];
  if (!v || v.IsNull() || !v.IsScalar()) return std::nullopt;
  return v.Scalar();
}

std::optional<std::vector<std::string>> optList(const YAML::Node& n, const char* key) {
  auto v = n[key];
  if (!v || v.IsNull()) return std::nullopt;
  std::vector<std::string> out;
  if (v.IsSequence()) {
    for (const auto& item : v)
      if (item.IsScalar()) out.push_back(item.Scalar());
  } else if (v.IsScalar()) {
    out.push_back(v.Scalar());
  }
  return out;
}

bool parseBool(const YAML::Node& v) {
  if (!v || !v.IsScalar()) return false;
  auto s = v.Scalar();
  return s == "true" || s == "True" || s == "TRUE";  // fastjson's Boolean conversion
}

void bumpVersion(AclFile& file, int64_t nowMs) {
  file.dataVersion.counter += 1;
  file.dataVersion.timestamp = nowMs;
  YAML::Node entry(YAML::NodeType::Map);
  entry["counter"] = file.dataVersion.counter;
  entry["timestamp"] = file.dataVersion.timestamp;
  YAML::Node list(YAML::NodeType::Sequence);
  list.push_back(entry);
  file.root["dataVersion"] = list;
}

void ensureMap(AclFile& file) {
  if (!file.root || !file.root.IsMap()) file.root = YAML::Node(YAML::NodeType::Map);
}

YAML::Node accountsNode(AclFile& file) {
  ensureMap(file);
  if (!file.root["accounts"] || !file.root["accounts"].IsSequence())
    file.root["accounts"] = YAML::Node(YAML::NodeType::Sequence);
  return file.root["accounts"];
}

YAML::Node stringList(const std::vector<std::string>& items) {
  YAML::Node list(YAML::NodeType::Sequence);
  for (const auto& s : items) list.push_back(s);
  return list;
}

// createAclAccessConfigMap: keys the request carries overwrite the account's.
void fillAccount(YAML::Node node, const AccountConfig& a) {
  node["accessKey"] = a.accessKey;
  if (a.secretKey && !a.secretKey->empty()) node["secretKey"] = *a.secretKey;
  if (a.whiteRemoteAddress) node["whiteRemoteAddress"] = *a.whiteRemoteAddress;
  node["admin"] = a.admin;
  if (a.defaultTopicPerm && !a.defaultTopicPerm->empty()) node["defaultTopicPerm"] = *a.defaultTopicPerm;
  if (a.defaultGroupPerm && !a.defaultGroupPerm->empty()) node["defaultGroupPerm"] = *a.defaultGroupPerm;
  if (a.topicPerms) node["topicPerms"] = stringList(*a.topicPerms);
  if (a.groupPerms) node["groupPerms"] = stringList(*a.groupPerms);
}

}  // namespace

std::string AclDataVersion::toJson() const { return fmt::format(R"({{"counter":{},"timestamp":{}}})", counter, timestamp); }

Result<AclFile> parseAclFile(const std::string& path, const std::string& text, int64_t nowMs) {
  AclFile file;
  file.path = path;
  file.dataVersion.timestamp = nowMs;
  try {
    file.root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("{}: {}", path, e.what()));
  }
  if (!file.root || file.root.IsNull()) return file;
  if (!file.root.IsMap())
    return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("{}: the document is not a map of keys", path));
  if (auto whites = optList(file.root, "globalWhiteRemoteAddresses")) file.globalWhiteRemoteAddresses = *whites;
  if (auto accounts = file.root["accounts"]; accounts && !accounts.IsNull()) {
    if (!accounts.IsSequence())
      return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("{}: line {}: `accounts` is not a list", path,
                                                               accounts.Mark().line + 1));
    for (const auto& n : accounts) {
      if (!n.IsMap())
        return makeError(ResponseCode::SYSTEM_ERROR,
                         fmt::format("{}: line {}: an account is not a map of keys", path, n.Mark().line + 1));
      AccountConfig a;
      a.accessKey = optString(n, "accessKey").value_or("");
      a.secretKey = optString(n, "secretKey");
      a.whiteRemoteAddress = optString(n, "whiteRemoteAddress");
      a.admin = parseBool(n["admin"]);
      a.defaultTopicPerm = optString(n, "defaultTopicPerm");
      a.defaultGroupPerm = optString(n, "defaultGroupPerm");
      a.topicPerms = optList(n, "topicPerms");
      a.groupPerms = optList(n, "groupPerms");
      file.accounts.push_back(std::move(a));
    }
  }
  if (auto dv = file.root["dataVersion"]; dv && dv.IsSequence() && dv.size() > 0 && dv[0].IsMap()) {
    try {
      if (dv[0]["counter"]) file.dataVersion.counter = dv[0]["counter"].as<int64_t>();
      if (dv[0]["timestamp"]) file.dataVersion.timestamp = dv[0]["timestamp"].as<int64_t>();
    } catch (const YAML::Exception& e) {
      return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("{}: dataVersion: {}", path, e.what()));
    }
  }
  return file;
}

void upsertAccount(AclFile& file, const AccountConfig& account, int64_t nowMs) {
  auto accounts = accountsNode(file);
  bool found = false;
  for (auto n : accounts)
    if (n.IsMap() && n["accessKey"] && n["accessKey"].Scalar() == account.accessKey) {
      fillAccount(n, account);
      found = true;
      break;
    }
  if (!found) {
    YAML::Node n(YAML::NodeType::Map);
    fillAccount(n, account);
    accounts.push_back(n);
  }
  bumpVersion(file, nowMs);
}

bool deleteAccount(AclFile& file, const std::string& accessKey, int64_t nowMs) {
  if (!file.root || !file.root.IsMap() || !file.root["accounts"] || !file.root["accounts"].IsSequence()) return false;
  YAML::Node kept(YAML::NodeType::Sequence);
  bool found = false;
  for (const auto& n : file.root["accounts"]) {
    if (!found && n.IsMap() && n["accessKey"] && n["accessKey"].Scalar() == accessKey) {
      found = true;
      continue;
    }
    kept.push_back(n);
  }
  if (!found) return false;
  file.root["accounts"] = kept;
  bumpVersion(file, nowMs);
  return true;
}

void setGlobalWhiteAddresses(AclFile& file, const std::vector<std::string>& addrs, int64_t nowMs) {
  ensureMap(file);
  file.root["globalWhiteRemoteAddresses"] = stringList(addrs);
  bumpVersion(file, nowMs);
}

std::string emitAclFile(const AclFile& file) {
  YAML::Emitter out;
  out << file.root;
  std::string text = out.c_str();
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

}  // namespace rmq::acl
