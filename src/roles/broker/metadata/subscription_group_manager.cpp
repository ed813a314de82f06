#include "roles/broker/metadata/subscription_group_manager.h"

#include <algorithm>

#include "common/log.h"
#include "roles/broker/metadata/config_file.h"
#include "roles/broker/metadata/json_text.h"

namespace rmq::broker {

namespace {

void writeGroup(json::Writer& w, const SubscriptionGroupConfig& g) {
  w.beginObject();
  g.forEachField([&w](std::string_view key, const auto& value) { w.key(key).value(value); });
  w.endObject();
}

constexpr std::string_view kBuiltinGroups[] = {
    "TOOLS_CONSUMER",        "FILTERSRV_CONSUMER",    "SELF_TEST_C_GROUP",    "CID_ONS-HTTP-PROXY",
    "CID_ONSAPI_PULL",       "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER",
};

}  // namespace

SubscriptionGroupManager::SubscriptionGroupManager(std::string configDir, bool autoCreate)
    : dir_(std::move(configDir)), autoCreate_(autoCreate) {
  for (auto name : kBuiltinGroups) {
    SubscriptionGroupConfig g;
    g.groupName = std::string(name);
    if (name == "TOOLS_CONSUMER" || name == "FILTERSRV_CONSUMER") g.consumeBroadcastEnable = true;
    table_[g.groupName] = g;
  }
}

std::string SubscriptionGroupManager::filePath() const {
  return dir_.empty() ? std::string() : dir_ + "/subscriptionGroup.json";
}

Result<void> SubscriptionGroupManager::load() {
  if (dir_.empty()) return {};
  auto r = loadConfigFile(filePath(), [&](std::string_view t) { return decodeAndReplace(t); });
  if (!r) return r.error();
  return {};
}

void SubscriptionGroupManager::setPersistExecutor(PersistSoon::Executor exec, std::chrono::milliseconds minGap) {
  persistSoon_.setExecutor(std::move(exec), minGap);
}

Result<void> SubscriptionGroupManager::persist() const {
  if (dir_.empty()) return {};
  return writeConfigFile(filePath(), encode(true));
}

std::optional<SubscriptionGroupConfig> SubscriptionGroupManager::find(std::string_view group) const {
  std::lock_guard lk(mu_);
  auto it = table_.find(std::string(group));
  if (it == table_.end()) return std::nullopt;
  return it->second;
}

std::optional<SubscriptionGroupConfig> SubscriptionGroupManager::findOrAutoCreate(std::string_view group) {
  SubscriptionGroupConfig g;
  {
    std::lock_guard lk(mu_);
    if (auto it = table_.find(std::string(group)); it != table_.end()) return it->second;
    if (!autoCreate_ && !group.starts_with("CID_RMQ_SYS_")) return std::nullopt;
    g.groupName = std::string(group);
    table_[g.groupName] = g;
    version_.next();
  }
  log::info("auto-created subscription group {}", group);
  persistSoon_();
  return g;
}

void SubscriptionGroupManager::update(const SubscriptionGroupConfig& config) {
  {
    std::lock_guard lk(mu_);
    table_[config.groupName] = config;
    version_.next();
  }
  log::info("create/update subscription group {}", config.groupName);
  persistSoon_();
}

bool SubscriptionGroupManager::remove(std::string_view group) {
  {
    std::lock_guard lk(mu_);
    if (table_.erase(std::string(group)) == 0) return false;
    version_.next();
  }
  log::info("deleted subscription group {}", group);
  persistSoon_();
  return true;
}

std::vector<SubscriptionGroupConfig> SubscriptionGroupManager::all() const {
  std::vector<SubscriptionGroupConfig> out;
  {
    std::lock_guard lk(mu_);
    for (auto& [_, g] : table_) out.push_back(g);
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.groupName < b.groupName; });
  return out;
}

DataVersion SubscriptionGroupManager::dataVersion() const {
  std::lock_guard lk(mu_);
  return version_;
}

void SubscriptionGroupManager::setAutoCreate(bool on) {
  std::lock_guard lk(mu_);
  autoCreate_ = on;
}

std::string SubscriptionGroupManager::encode(bool pretty) const {
  auto groups = all();
  DataVersion v = dataVersion();
  json::Writer w(pretty);
  w.beginObject();
  w.key("dataVersion").beginObject().key("counter").value(v.counter).key("timestamp").value(v.timestamp).endObject();
  w.key("subscriptionGroupTable").beginObject();
  for (auto& g : groups) {
    w.key(g.groupName);
    writeGroup(w, g);
  }
  w.endObject().endObject();
  return w.take();
}

Result<void> SubscriptionGroupManager::decodeAndReplace(std::string_view text) {
  auto doc = json::parse(text);
  if (!doc) return doc.error();
  const rapidjson::Value& root = *doc;
  if (!root.IsObject()) return makeError(1, "subscription group wrapper is not an object");
  std::unordered_map<std::string, SubscriptionGroupConfig> fresh;
  if (auto t = root.FindMember("subscriptionGroupTable"); t != root.MemberEnd() && t->value.IsObject()) {
    for (auto& m : t->value.GetObject()) {
      if (!m.value.IsObject()) return makeError(1, "subscription group entry is not an object");
      auto g = SubscriptionGroupConfig::fromJsonValue(m.value, m.name.GetString());
      fresh[g.groupName] = g;
    }
  }
  std::lock_guard lk(mu_);
  if (auto dv = root.FindMember("dataVersion"); dv != root.MemberEnd()) {
    version_.counter = json::getInt(dv->value, "counter");
    version_.timestamp = json::getInt(dv->value, "timestamp");
  }
  for (auto& [k, g] : fresh) table_[k] = g;
  return {};
}

}  // namespace rmq::broker
