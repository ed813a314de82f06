#include "roles/broker/metadata/consumer_offset_manager.h"

#include <algorithm>

#include "common/log.h"
#include "roles/broker/metadata/config_file.h"
#include "roles/broker/metadata/json_text.h"

namespace rmq::broker {

namespace {
constexpr char kSep = '@';

// Splits "topic@group"; the topic may not contain '@', so the first '@' separates.
bool splitKey(std::string_view key, std::string_view& topic, std::string_view& group) {
  auto at = key.find(kSep);
  if (at == std::string_view::npos) return false;
  topic = key.substr(0, at);
  group = key.substr(at + 1);
  return true;
}
}  // namespace

ConsumerOffsetManager::ConsumerOffsetManager(std::string configDir) : dir_(std::move(configDir)) {}

std::string ConsumerOffsetManager::key(std::string_view topic, std::string_view group) {
  std::string k;
  k.reserve(topic.size() + group.size() + 1);
  k.append(topic).push_back(kSep);
  k.append(group);
  return k;
}

std::string ConsumerOffsetManager::filePath() const {
  return dir_.empty() ? std::string() : dir_ + "/consumerOffset.json";
}

Result<void> ConsumerOffsetManager::load() {
  if (dir_.empty()) return {};
  auto r = loadConfigFile(filePath(), [&](std::string_view t) { return decodeAndReplace(t); });
  if (!r) return r.error();
  return {};
}

Result<void> ConsumerOffsetManager::persist() const {
  if (dir_.empty()) return {};
  return writeConfigFile(filePath(), encode(true));
}

void ConsumerOffsetManager::commitOffset(std::string_view group, std::string_view topic,
                                         int32_t queueId, int64_t offset) {
  std::string k = key(topic, group);
  std::lock_guard lk(mu_);
  table_[k][queueId] = offset;
}

int64_t ConsumerOffsetManager::queryOffset(std::string_view group, std::string_view topic,
                                           int32_t queueId) const {
  std::string k = key(topic, group);
  std::lock_guard lk(mu_);
  auto it = table_.find(k);
  if (it == table_.end()) return -1;
  auto q = it->second.find(queueId);
  return q == it->second.end() ? -1 : q->second;
}

QueueOffsets ConsumerOffsetManager::queryOffsets(std::string_view group, std::string_view topic) const {
  std::string k = key(topic, group);
  std::lock_guard lk(mu_);
  auto it = table_.find(k);
  return it == table_.end() ? QueueOffsets{} : it->second;
}

bool ConsumerOffsetManager::hasOffsets(std::string_view group, std::string_view topic) const {
  std::string k = key(topic, group);
  std::lock_guard lk(mu_);
  return table_.count(k) != 0;
}

std::set<std::string> ConsumerOffsetManager::topicsOfGroup(std::string_view group) const {
  std::set<std::string> out;
  std::lock_guard lk(mu_);
  for (auto& [k, _] : table_) {
    std::string_view t, g;
    if (splitKey(k, t, g) && g == group) out.emplace(t);
  }
  return out;
}

std::set<std::string> ConsumerOffsetManager::groupsOfTopic(std::string_view topic) const {
  std::set<std::string> out;
  std::lock_guard lk(mu_);
  for (auto& [k, _] : table_) {
    std::string_view t, g;
    if (splitKey(k, t, g) && t == topic) out.emplace(g);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> ConsumerOffsetManager::groupTopicPairs() const {
  std::vector<std::pair<std::string, std::string>> out;
  std::lock_guard lk(mu_);
  out.reserve(table_.size());
  for (auto& [k, _] : table_) {
    std::string_view t, g;
    if (splitKey(k, t, g)) out.emplace_back(std::string(g), std::string(t));
  }
  return out;
}

void ConsumerOffsetManager::cloneOffset(std::string_view srcGroup, std::string_view destGroup,
                                        std::string_view topic) {
  std::lock_guard lk(mu_);
  std::vector<std::pair<std::string, QueueOffsets>> copies;
  for (auto& [k, offsets] : table_) {
    std::string_view t, g;
    if (!splitKey(k, t, g) || g != srcGroup) continue;
    if (!topic.empty() && t != topic) continue;
    copies.emplace_back(key(t, destGroup), offsets);
  }
  for (auto& [k, offsets] : copies) table_[k] = std::move(offsets);
}

void ConsumerOffsetManager::resetOffsets(std::string_view group, std::string_view topic,
                                         const QueueOffsets& offsets) {
  std::string k = key(topic, group);
  std::lock_guard lk(mu_);
  auto& entry = table_[k];
  for (auto& [q, o] : offsets) entry[q] = o;
}

void ConsumerOffsetManager::removeGroup(std::string_view group) {
  std::lock_guard lk(mu_);
  std::erase_if(table_, [&](auto& kv) {
    std::string_view t, g;
    return splitKey(kv.first, t, g) && g == group;
  });
}

void ConsumerOffsetManager::removeTopic(std::string_view topic) {
  std::lock_guard lk(mu_);
  std::erase_if(table_, [&](auto& kv) {
    std::string_view t, g;
    return splitKey(kv.first, t, g) && t == topic;
  });
}

bool ConsumerOffsetManager::empty() const {
  std::lock_guard lk(mu_);
  return table_.empty();
}

std::string ConsumerOffsetManager::encode(bool pretty) const {
  std::vector<std::pair<std::string, QueueOffsets>> snapshot;
  {
    std::lock_guard lk(mu_);
    snapshot.assign(table_.begin(), table_.end());
  }
  std::sort(snapshot.begin(), snapshot.end(), [](auto& a, auto& b) { return a.first < b.first; });
  json::Writer w(pretty);
  w.beginObject().key("offsetTable").beginObject();
  for (auto& [k, offsets] : snapshot) {
    // Inner maps on one line with raw int keys, as fastjson writes Map<Integer,Long> (§6.8).
    json::Writer inner;
    inner.beginObject();
    for (auto& [q, o] : offsets) inner.intKey(q).value(o);
    inner.endObject();
    w.key(k).rawValue(inner.str());
  }
  w.endObject().endObject();
  return w.take();
}

Result<ConsumerOffsetManager::Table> ConsumerOffsetManager::decode(std::string_view text) {
  auto doc = json::parse(text);
  if (!doc) return doc.error();
  const rapidjson::Value& root = *doc;
  if (!root.IsObject()) return makeError(1, "consumer offset wrapper is not an object");
  Table fresh;
  if (auto t = root.FindMember("offsetTable"); t != root.MemberEnd() && t->value.IsObject()) {
    for (auto& m : t->value.GetObject()) {
      if (!m.value.IsObject()) return makeError(1, "consumer offset entry is not an object");
      QueueOffsets& qo = fresh[m.name.GetString()];
      for (auto& q : m.value.GetObject()) {
        if (!q.value.IsNumber()) return makeError(1, "consumer offset value is not a number");
        qo[static_cast<int32_t>(std::stol(q.name.GetString()))] = q.value.GetInt64();
      }
    }
  }
  return fresh;
}

Result<void> ConsumerOffsetManager::decodeAndReplace(std::string_view text) {
  auto fresh = decode(text);
  if (!fresh) return fresh.error();
  std::lock_guard lk(mu_);
  table_ = std::move(*fresh);
  return {};
}

Result<void> ConsumerOffsetManager::decodeAndMerge(std::string_view text) {
  auto fresh = decode(text);
  if (!fresh) return fresh.error();
  std::lock_guard lk(mu_);
  for (auto& [k, offsets] : *fresh) table_[k] = std::move(offsets);
  return {};
}

}  // namespace rmq::broker
