#pragma once
// KvConfigManager: namespace -> key -> value, persisted to kvConfig.json in Java's shape
// {"configTable":{"<namespace>":{"<key>":"<value>"}}} on every change (PROTOCOL.md §7.4).
// Thread safety: any thread. put/remove write the file (tmp + fsync + rename), so call them off
// the network threads; reads never wait for disk.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>

#include "common/result.h"

namespace rmq::namesrv {

inline constexpr const char* kNamespaceOrderTopicConfig = "ORDER_TOPIC_CONFIG";

class KvConfigManager {
 public:
  explicit KvConfigManager(std::string path) : path_(std::move(path)) {}

  // Reads the file if it exists. A file that exists but cannot be parsed is an error (starting
  // empty would overwrite it on the next put).
  Result<void> load();
  Result<void> put(const std::string& ns, const std::string& key, const std::string& value);
  Result<void> remove(const std::string& ns, const std::string& key);
  std::optional<std::string> get(const std::string& ns, const std::string& key) const;
  // KVTable JSON {"table":{...}} of one namespace; nullopt when the namespace is absent.
  std::optional<std::string> kvListJson(const std::string& ns) const;
  const std::string& path() const { return path_; }

 private:
  std::string snapshotJsonLocked() const;
  Result<void> persist(std::string json, uint64_t seq);

  std::string path_;
  mutable std::shared_mutex mu_;
  std::map<std::string, std::map<std::string, std::string>> table_;
  uint64_t changeSeq_ = 0;      // guarded by mu_
  std::mutex fileMu_;
  uint64_t writtenSeq_ = 0;     // guarded by fileMu_: newest snapshot on disk
};

}  // namespace rmq::namesrv
