#pragma once
// TopicConfigManager: the broker's topic table (topics.json, PROTOCOL.md §6.8), system topics
// created at start (§8.1), admin create/update/delete, and auto-creation from TBW102 (§7.6) or
// for retry/DLQ topics (§10.2).
// Thread-safety: every method may be called from any thread (one mutex). Persisting writes the
// file synchronously (no fsync), like Java's ConfigManager; callers on network threads only do so
// on admin / auto-create paths, never per message.
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "roles/broker/metadata/persist_soon.h"
#include "roles/broker/broker_config.h"
#include "roles/broker/metadata/topic_config.h"

namespace rmq::broker {

struct TopicConfigManagerOptions {
  std::string configDir;  // <storePathRootDir>/config; empty = memory only (tests)
  std::string clusterName = "DefaultCluster";
  std::string brokerName = "broker-a";
  bool autoCreateTopicEnable = true;
  int32_t defaultTopicQueueNums = 8;
  bool clusterTopicEnable = true;
  bool brokerTopicEnable = true;
  bool traceTopicEnable = false;
  std::string msgTraceTopicName = "RMQ_SYS_TRACE_TOPIC";

  // The relevant BrokerConfig keys; configDir = <storePathRootDir>/config.
  static TopicConfigManagerOptions from(const BrokerConfig& config, std::string configDir);
};

class TopicConfigManager {
 public:
  explicit TopicConfigManager(TopicConfigManagerOptions options);

  // Creates the system topics, then loads topics.json (falling back to topics.json.bak).
  // A missing file is fine; an unreadable one is an error (start-up must not lose topics).
  Result<void> load();
  Result<void> persist() const;
  // Where change-triggered persistence runs (default: synchronously in the caller). The broker
  // hands jobs to its background thread so admin requests never write files on network threads.
  void setPersistExecutor(PersistSoon::Executor exec, std::chrono::milliseconds minGap = {});
  std::string filePath() const;

  std::optional<TopicConfig> find(std::string_view topic) const;
  bool contains(std::string_view topic) const { return find(topic).has_value(); }
  std::vector<TopicConfig> all() const;
  std::vector<std::string> topicNames() const;
  DataVersion dataVersion() const;
  // A new data version with the table unchanged (Java's getDataVersion().nextVersion() when the
  // broker permission changes: the name servers then re-read every queue's perm).
  void nextDataVersion();

  // Admin create/update (UPDATE_AND_CREATE_TOPIC): replaces, bumps the version, persists.
  void updateTopicConfig(const TopicConfig& config);
  // Admin delete; false if absent. Does not check system topics (the processor does).
  bool deleteTopicConfig(std::string_view topic);
  // System topics of this broker: fixed names + cluster name + broker name (+ trace topic).
  bool isSystemTopic(std::string_view topic) const;
  std::set<std::string> systemTopicNames() const;

  // Send-path auto-creation (§7.6). Returns the topic's config (existing or new) or nullopt when
  // the default topic does not allow it. `created` (optional) tells whether a topic was added
  // (the caller then re-registers with the name servers, via the onTopicCreated hook).
  std::optional<TopicConfig> createTopicInSendMessageMethod(std::string_view topic,
                                                            std::string_view defaultTopic,
                                                            int32_t clientDefaultTopicQueueNums,
                                                            int32_t topicSysFlag,
                                                            bool* created = nullptr);
  // Retry / DLQ / system topic creation with fixed queue count and perm (§10.2).
  TopicConfig createTopicInSendMessageBackMethod(std::string_view topic, int32_t queueNums,
                                                 int32_t perm, int32_t topicSysFlag,
                                                 bool* created = nullptr);
  // Start-up, after the store recovered: a topic with consume queues but no config is one a send
  // auto-created (and acknowledged) just before a crash, before the coalesced topics.json write
  // (Java writes it synchronously, so it would have it). Recreates it as the send path would have:
  // read/write queues = max(highest queue id + 1, the Java producer's default 4 capped by the
  // default topic's), perm RW; %RETRY% / %DLQ% topics with highest id + 1 queues. System topics
  // are left alone. Persists synchronously when it added any; returns their names.
  std::vector<std::string> recreateFromQueues(const std::map<std::string, std::set<int>>& queues);
  // Sets the order flag of listed topics (ORDER_TOPIC_CONFIG from the name server).
  void updateOrderTopicConfig(const std::vector<std::string>& orderTopics);

  // TopicConfigSerializeWrapper JSON: {"dataVersion":{...},"topicConfigTable":{...}} (§3.2).
  std::string encode(bool pretty = false) const;
  // Parses a TopicConfigSerializeWrapper (file content or a slave's sync body).
  static Result<std::pair<DataVersion, std::vector<TopicConfig>>> decode(std::string_view json);
  // Replaces the whole table (slave sync).
  void replaceAll(const DataVersion& version, const std::vector<TopicConfig>& configs);

  // Called (outside the lock) after a topic is auto-created or changed by admin.
  void setOnTopicCreated(std::function<void(const TopicConfig&)> hook);

 private:
  void addSystemTopics();
  void putLocked(const TopicConfig& c) { table_[c.topicName] = c; }
  void notifyCreated(const TopicConfig& c);

  TopicConfigManagerOptions opts_;
  PersistSoon persistSoon_{"topics.json", [this] { return persist(); }};  // after a change
  mutable std::mutex mu_;
  std::unordered_map<std::string, TopicConfig> table_;
  DataVersion version_;
  std::set<std::string> systemTopics_;
  std::function<void(const TopicConfig&)> onCreated_;
};

}  // namespace rmq::broker
