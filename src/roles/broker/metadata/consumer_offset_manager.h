#pragma once
// ConsumerOffsetManager: committed consume offsets, "topic@group" -> queueId -> next offset to
// consume (consumerOffset.json, PROTOCOL.md §6.8). No validation of committed values (§8.6);
// the "unknown offset" policy of QUERY_CONSUMER_OFFSET is the caller's.
// Thread-safety: any thread; a mutex guards the table (commits are tiny critical sections).
// persist() snapshots under the lock and writes the file outside it; call it from a timer /
// shutdown thread, not from network threads.
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"

namespace rmq::broker {

using QueueOffsets = std::map<int32_t, int64_t>;  // queueId -> offset (ordered for output)

class ConsumerOffsetManager {
 public:
  explicit ConsumerOffsetManager(std::string configDir);

  Result<void> load();  // consumerOffset.json (.bak fallback); missing = empty
  Result<void> persist() const;
  std::string filePath() const;

  void commitOffset(std::string_view group, std::string_view topic, int32_t queueId, int64_t offset);
  // -1 when unknown.
  int64_t queryOffset(std::string_view group, std::string_view topic, int32_t queueId) const;
  QueueOffsets queryOffsets(std::string_view group, std::string_view topic) const;
  bool hasOffsets(std::string_view group, std::string_view topic) const;

  std::set<std::string> topicsOfGroup(std::string_view group) const;
  std::set<std::string> groupsOfTopic(std::string_view topic) const;
  // Every (group, topic) with committed offsets, in one pass over the table.
  std::vector<std::pair<std::string, std::string>> groupTopicPairs() const;
  // Copies offsets of srcGroup to destGroup for one topic (all topics when topic is empty).
  void cloneOffset(std::string_view srcGroup, std::string_view destGroup, std::string_view topic);
  // Replaces a group's offsets for a topic (reset-offset).
  void resetOffsets(std::string_view group, std::string_view topic, const QueueOffsets& offsets);
  void removeGroup(std::string_view group);
  void removeTopic(std::string_view topic);

  // ConsumerOffsetSerializeWrapper: {"offsetTable":{"t@g":{0:1,1:2}}} (unquoted int keys).
  std::string encode(bool pretty = false) const;
  Result<void> decodeAndReplace(std::string_view json);
  // Slave sync (Java's offsetTable.putAll): the wrapper's entries replace ours key by key; keys
  // only we have stay.
  Result<void> decodeAndMerge(std::string_view json);
  bool empty() const;

  static std::string key(std::string_view topic, std::string_view group);

 private:
  using Table = std::unordered_map<std::string, QueueOffsets>;
  static Result<Table> decode(std::string_view json);
  std::string dir_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, QueueOffsets> table_;
};

}  // namespace rmq::broker
