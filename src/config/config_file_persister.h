#pragma once
// ConfigFilePersister: keeps the config file a node was started with (--config) up to date with
// run-time updates (UPDATE_BROKER_CONFIG, UPDATE_NAMESRV_CONFIG), so a restart keeps them, as
// Apache RocketMQ's Configuration.update() -> persist() does with the -c file. The file is edited
// in place (config_file_update.h: comments, order and other keys kept) and replaced atomically;
// the previous content is kept as <file>.bak, as Java's MixAll.string2File does.
//
// One per process, shared by its roles (a namesrv,master node has one file): writes are
// serialized. Without a config file an update is applied in memory only and a warning says it
// is lost at restart (RocketMQ writes it to a default path it never reads back).
//
// A write that fails (read-only file, full disk) leaves the file as it was and is logged; the
// update stays in force (RocketMQ logs the IOException and still answers SUCCESS).
//
// Threads: capture() under the caller's update lock (it orders the updates); write() on a
// thread that may block (not a network thread).
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/config_file_update.h"

namespace rmq::config {

// An update's new values, waiting to be written.
struct PendingUpdate {
  uint64_t ticket = 0;  // update order: a key is never overwritten by an older value
  std::vector<KeyUpdate> keys;
};

class ConfigFilePersister {
 public:
  ConfigFilePersister() = default;  // no config file
  // `sections`: every section the node loaded from `path` (only titles and key names are kept).
  ConfigFilePersister(std::string path, const std::vector<ConfigSection>& sections);

  bool hasFile() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  // Right after an update was applied, under the lock that serializes updates: the values
  // `sections` now hold for `keys` (applyEntries' result).
  PendingUpdate capture(const std::vector<ConfigSection>& sections, const std::vector<std::string>& keys);
  // Writes a captured update into the file (skipping keys a later update already wrote) and logs
  // the outcome. Blocking. Without a file: logs that the update is not persisted.
  Result<void> write(const PendingUpdate& update);

 private:
  Result<void> writeLocked(const std::vector<KeyUpdate>& keys);

  std::string path_;
  std::optional<ConfigFormat> format_;
  std::vector<SectionKeys> sections_;
  std::atomic<uint64_t> lastTicket_{0};
  std::mutex mu_;                                  // one file edit at a time
  std::map<std::string, uint64_t> writtenTicket_;  // "section.key" -> ticket of the value in the file
};

}  // namespace rmq::config
