#pragma once
// SubscriptionGroupManager: consumer group settings (subscriptionGroup.json, PROTOCOL.md §6.8),
// built-in groups, auto-creation on first use (autoCreateSubscriptionGroup, always for CID_RMQ_SYS_*).
// Thread-safety: all methods may be called from any thread (one mutex); persisting is a
// synchronous file write done only on admin / auto-create paths.
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "common/subscription_group.h"
#include "roles/broker/metadata/persist_soon.h"
#include "roles/broker/metadata/topic_config.h"

namespace rmq::broker {

using rmq::SubscriptionGroupConfig;  // common/subscription_group.h: shared with the admin client

class SubscriptionGroupManager {
 public:
  SubscriptionGroupManager(std::string configDir, bool autoCreateSubscriptionGroup);

  Result<void> load();  // built-ins, then subscriptionGroup.json (.bak fallback)
  Result<void> persist() const;
  // Where change-triggered persistence runs (default: synchronously in the caller). The broker
  // hands jobs to its background thread so admin requests never write files on network threads.
  void setPersistExecutor(PersistSoon::Executor exec, std::chrono::milliseconds minGap = {});
  std::string filePath() const;

  std::optional<SubscriptionGroupConfig> find(std::string_view group) const;
  // Existing group, or a new default one when auto-creation applies; nullopt otherwise.
  std::optional<SubscriptionGroupConfig> findOrAutoCreate(std::string_view group);
  void update(const SubscriptionGroupConfig& config);  // create/replace + version + persist
  bool remove(std::string_view group);
  std::vector<SubscriptionGroupConfig> all() const;
  DataVersion dataVersion() const;
  void setAutoCreate(bool on);

  // {"dataVersion":{...},"subscriptionGroupTable":{"g":{...}}}
  std::string encode(bool pretty = false) const;
  Result<void> decodeAndReplace(std::string_view json);

 private:
  std::string dir_;
  bool autoCreate_;
  PersistSoon persistSoon_{"subscriptionGroup.json", [this] { return persist(); }};  // after a change
  mutable std::mutex mu_;
  std::unordered_map<std::string, SubscriptionGroupConfig> table_;
  DataVersion version_;
};

}  // namespace rmq::broker
