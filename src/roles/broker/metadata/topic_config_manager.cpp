#include "roles/broker/metadata/topic_config_manager.h"

#include <algorithm>

#include <fmt/ranges.h>

#include "common/log.h"
#include "roles/broker/metadata/config_file.h"
#include "roles/broker/metadata/json_text.h"

namespace rmq::broker {

TopicConfigManagerOptions TopicConfigManagerOptions::from(const BrokerConfig& config,
                                                          std::string configDir) {
  TopicConfigManagerOptions o;
  o.configDir = std::move(configDir);
  o.clusterName = config.brokerClusterName;
  o.brokerName = config.brokerName;
  o.autoCreateTopicEnable = config.autoCreateTopicEnable;
  o.defaultTopicQueueNums = config.defaultTopicQueueNums;
  o.clusterTopicEnable = config.clusterTopicEnable;
  o.brokerTopicEnable = config.brokerTopicEnable;
  o.traceTopicEnable = config.traceTopicEnable;
  o.msgTraceTopicName = config.msgTraceTopicName;
  return o;
}

TopicConfigManager::TopicConfigManager(TopicConfigManagerOptions options) : opts_(std::move(options)) {
  addSystemTopics();
}

void TopicConfigManager::addSystemTopics() {
  auto add = [&](std::string_view name, int32_t queues, int32_t p, bool system = true) {
    TopicConfig c;
    c.topicName = std::string(name);
    c.readQueueNums = c.writeQueueNums = queues;
    c.perm = p;
    table_[c.topicName] = c;
    if (system) systemTopics_.insert(c.topicName);
  };
  const int32_t rw = perm::READ | perm::WRITE;
  add(topics::SELF_TEST_TOPIC, 1, rw);
  if (opts_.autoCreateTopicEnable) {
    add(topics::AUTO_CREATE_TOPIC_KEY, opts_.defaultTopicQueueNums, rw | perm::INHERIT);
  }
  add(topics::BENCHMARK_TOPIC, 1024, rw);
  add(opts_.clusterName, 16, perm::INHERIT | (opts_.clusterTopicEnable ? rw : 0));
  add(opts_.brokerName, 1, perm::INHERIT | (opts_.brokerTopicEnable ? rw : 0));
  add(topics::OFFSET_MOVED_EVENT, 1, rw);
  add(topics::SCHEDULE_TOPIC, 18, rw);
  if (opts_.traceTopicEnable) add(opts_.msgTraceTopicName, 1, rw);
  add(opts_.clusterName + std::string(topics::REPLY_TOPIC_SUFFIX), 1, rw, false);
}

std::string TopicConfigManager::filePath() const {
  return opts_.configDir.empty() ? std::string() : opts_.configDir + "/topics.json";
}

Result<void> TopicConfigManager::load() {
  if (opts_.configDir.empty()) return {};
  auto loaded = loadConfigFile(filePath(), [&](std::string_view text) -> Result<void> {
    auto decoded = decode(text);
    if (!decoded) return decoded.error();
    std::lock_guard lk(mu_);
    version_ = decoded->first;
    table_.reserve(table_.size() + decoded->second.size());
    for (auto& c : decoded->second) table_[c.topicName] = std::move(c);
    return {};
  });
  if (!loaded) return loaded.error();
  // TBW102 follows the current autoCreateTopicEnable, whatever the file says (§7.6).
  std::lock_guard lk(mu_);
  if (!opts_.autoCreateTopicEnable) {
    auto it = table_.find(std::string(topics::AUTO_CREATE_TOPIC_KEY));
    if (it != table_.end()) it->second.perm = perm::READ | perm::WRITE;
  }
  return {};
}

void TopicConfigManager::setPersistExecutor(PersistSoon::Executor exec, std::chrono::milliseconds minGap) {
  persistSoon_.setExecutor(std::move(exec), minGap);
}

Result<void> TopicConfigManager::persist() const {
  if (opts_.configDir.empty()) return {};
  return writeConfigFile(filePath(), encode(true));
}

std::optional<TopicConfig> TopicConfigManager::find(std::string_view topic) const {
  std::lock_guard lk(mu_);
  auto it = table_.find(std::string(topic));
  if (it == table_.end()) return std::nullopt;
  return it->second;
}

std::vector<TopicConfig> TopicConfigManager::all() const {
  std::vector<TopicConfig> out;
  {
    std::lock_guard lk(mu_);
    out.reserve(table_.size());
    for (auto& [_, c] : table_) out.push_back(c);
  }
  std::sort(out.begin(), out.end(),
            [](const TopicConfig& a, const TopicConfig& b) { return a.topicName < b.topicName; });
  return out;
}

std::vector<std::string> TopicConfigManager::topicNames() const {
  std::vector<std::string> names;
  for (auto& c : all()) names.push_back(c.topicName);
  return names;
}

DataVersion TopicConfigManager::dataVersion() const {
  std::lock_guard lk(mu_);
  return version_;
}

void TopicConfigManager::nextDataVersion() {
  {
    std::lock_guard lk(mu_);
    version_.next();
  }
  persistSoon_();
}

void TopicConfigManager::updateTopicConfig(const TopicConfig& config) {
  {
    std::lock_guard lk(mu_);
    auto it = table_.find(config.topicName);
    if (it != table_.end()) {
      log::info("update topic config, old: {} new: {}", it->second.topicName, config.topicName);
    } else {
      log::info("create new topic {}", config.topicName);
    }
    putLocked(config);
    version_.next();
  }
  persistSoon_();
}

bool TopicConfigManager::deleteTopicConfig(std::string_view topic) {
  {
    std::lock_guard lk(mu_);
    if (table_.erase(std::string(topic)) == 0) return false;
    version_.next();
  }
  log::info("delete topic config {}", topic);
  persistSoon_();
  return true;
}

bool TopicConfigManager::isSystemTopic(std::string_view topic) const {
  if (topics::isFixedSystemTopic(topic)) return true;
  std::lock_guard lk(mu_);
  return systemTopics_.count(std::string(topic)) != 0;
}

std::set<std::string> TopicConfigManager::systemTopicNames() const {
  std::lock_guard lk(mu_);
  return systemTopics_;
}

std::optional<TopicConfig> TopicConfigManager::createTopicInSendMessageMethod(
    std::string_view topic, std::string_view defaultTopic, int32_t clientDefaultTopicQueueNums,
    int32_t topicSysFlag, bool* created) {
  if (created) *created = false;
  TopicConfig fresh;
  {
    std::lock_guard lk(mu_);
    if (auto it = table_.find(std::string(topic)); it != table_.end()) return it->second;
    auto def = table_.find(std::string(defaultTopic));
    if (def == table_.end()) {
      log::warn("create topic {}: default topic {} does not exist", topic, defaultTopic);
      return std::nullopt;
    }
    if (defaultTopic == topics::AUTO_CREATE_TOPIC_KEY && !opts_.autoCreateTopicEnable) {
      def->second.perm = perm::READ | perm::WRITE;
    }
    if (!perm::isInherited(def->second.perm)) {
      log::warn("create topic {}: default topic {} has no inherit perm ({})", topic, defaultTopic,
                def->second.perm);
      return std::nullopt;
    }
    fresh.topicName = std::string(topic);
    int32_t queues = std::max(0, std::min(clientDefaultTopicQueueNums, def->second.writeQueueNums));
    fresh.readQueueNums = fresh.writeQueueNums = queues;
    fresh.perm = def->second.perm & ~perm::INHERIT;
    fresh.topicSysFlag = topicSysFlag;
    fresh.topicFilterType = def->second.topicFilterType;
    putLocked(fresh);
    version_.next();
  }
  log::info("auto-created topic {} from {} ({} queues)", topic, defaultTopic, fresh.writeQueueNums);
  if (created) *created = true;
  persistSoon_();
  notifyCreated(fresh);
  return fresh;
}

std::vector<std::string> TopicConfigManager::recreateFromQueues(const std::map<std::string, std::set<int>>& queues) {
  constexpr int32_t kProducerDefaultTopicQueueNums = 4;  // Java DefaultMQProducer.defaultTopicQueueNums
  std::vector<std::string> added;
  {
    std::lock_guard lk(mu_);
    for (const auto& [topic, ids] : queues) {
      if (ids.empty() || table_.contains(topic)) continue;
      if (topics::isFixedSystemTopic(topic) || systemTopics_.contains(topic)) continue;
      const bool retryOrDlq = topics::isRetryTopic(topic) || topics::isDlqTopic(topic);
      int32_t floor = 0;
      if (!retryOrDlq) {
        auto def = table_.find(std::string(topics::AUTO_CREATE_TOPIC_KEY));
        floor = std::min(kProducerDefaultTopicQueueNums,
                         def == table_.end() ? opts_.defaultTopicQueueNums : def->second.writeQueueNums);
      }
      TopicConfig fresh;
      fresh.topicName = topic;
      fresh.readQueueNums = fresh.writeQueueNums = std::max(*ids.rbegin() + 1, floor);
      fresh.perm = perm::READ | perm::WRITE;
      putLocked(fresh);
      added.push_back(topic);
    }
    if (!added.empty()) version_.next();
  }
  if (added.empty()) return added;
  log::warn("recreated {} topic config(s) missing from topics.json but with consume queues (auto-created "
            "just before a crash?): {}", added.size(), fmt::join(added, ", "));
  if (auto r = persist(); !r) log::error("persist topics: {}", r.error().message);
  return added;
}

TopicConfig TopicConfigManager::createTopicInSendMessageBackMethod(std::string_view topic,
                                                                   int32_t queueNums, int32_t p,
                                                                   int32_t topicSysFlag,
                                                                   bool* created) {
  if (created) *created = false;
  TopicConfig fresh;
  {
    std::lock_guard lk(mu_);
    if (auto it = table_.find(std::string(topic)); it != table_.end()) return it->second;
    fresh.topicName = std::string(topic);
    fresh.readQueueNums = fresh.writeQueueNums = queueNums;
    fresh.perm = p;
    fresh.topicSysFlag = topicSysFlag;
    putLocked(fresh);
    version_.next();
  }
  log::info("created topic {} ({} queues, perm {})", topic, queueNums, p);
  if (created) *created = true;
  persistSoon_();
  notifyCreated(fresh);
  return fresh;
}

void TopicConfigManager::updateOrderTopicConfig(const std::vector<std::string>& orderTopics) {
  bool changed = false;
  {
    std::lock_guard lk(mu_);
    for (auto& [name, c] : table_) {
      bool shouldBeOrder =
          std::find(orderTopics.begin(), orderTopics.end(), name) != orderTopics.end();
      if (c.order != shouldBeOrder) {
        c.order = shouldBeOrder;
        changed = true;
      }
    }
    if (changed) version_.next();
  }
  if (changed) persistSoon_();
}

void TopicConfigManager::replaceAll(const DataVersion& version, const std::vector<TopicConfig>& configs) {
  {
    std::lock_guard lk(mu_);
    table_.clear();
    for (auto& c : configs) table_[c.topicName] = c;
    version_ = version;
  }
  persistSoon_();
}

void TopicConfigManager::setOnTopicCreated(std::function<void(const TopicConfig&)> hook) {
  std::lock_guard lk(mu_);
  onCreated_ = std::move(hook);
}

void TopicConfigManager::notifyCreated(const TopicConfig& c) {
  std::function<void(const TopicConfig&)> hook;
  {
    std::lock_guard lk(mu_);
    hook = onCreated_;
  }
  if (hook) hook(c);
}

}  // namespace rmq::broker
