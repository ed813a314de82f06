#pragma once
// ScheduleMessageService: delivers delay-level messages (PROTOCOL.md §10.1). The store parks a
// message with DELAY=n in SCHEDULE_TOPIC_XXXX queue n-1 (tags code = due time); this service
// reads each level's queue in order and, when a message is due, re-appends it to REAL_TOPIC /
// REAL_QID with its properties string unchanged (DELAY included, as Java 4.9 stores it). Progress per level (next queue offset to deliver) is
// delayOffset.json, written every flushDelayOffsetInterval and on shutdown.
//
// Threads: one dedicated thread with its own io_context runs one timer per level (a level sleeps
// until its head message is due, or polls every 100 ms while its queue is empty), the periodic
// persist, and nothing else — store reads/appends never run on a network thread.
// Lifecycle: construct, load() (after the store is open), start() (masters only), shutdown().
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "roles/broker/delivery/delay_levels.h"

namespace rmq::store {
class MessageStore;
}

namespace rmq::broker {

class ScheduleMessageService {
 public:
  // levels: from StoreConfig::messageDelayLevel; configDir: empty = memory only.
  ScheduleMessageService(store::MessageStore& store, DelayLevels levels, std::string configDir,
                         int64_t flushDelayOffsetIntervalMs = 10000);
  ~ScheduleMessageService();

  // Reads delayOffset.json (.bak fallback) and clamps each offset into its queue's [min, max].
  Result<void> load();
  void start();     // starts the delivery thread (idempotent)
  void shutdown();  // stops timers, joins the thread, persists (idempotent)
  Result<void> persist() const;
  std::string filePath() const;

  const DelayLevels& levels() const { return levels_; }
  // level -> next offset to deliver (levels never touched are absent, like Java's table).
  std::map<int32_t, int64_t> offsets() const;
  // {"offsetTable":{1:0,2:5}} (unquoted int keys, §6.8).
  std::string encode(bool pretty = false) const;
  Result<void> decodeAndReplace(std::string_view json);
  uint64_t deliveredCount() const { return delivered_.load(std::memory_order_relaxed); }

 private:
  struct LevelTask;
  void scheduleLevel(LevelTask& task, std::chrono::milliseconds after);
  // Delivers every due message of one level; returns how long to wait before the next run.
  std::chrono::milliseconds deliverDue(int32_t level);
  bool deliverOne(std::string_view record);
  void schedulePersist();
  void setOffset(int32_t level, int64_t offset);

  store::MessageStore& store_;
  DelayLevels levels_;
  std::string dir_;
  int64_t persistIntervalMs_;

  mutable std::mutex mu_;
  std::map<int32_t, int64_t> offsets_;

  asio::io_context io_;
  std::vector<std::unique_ptr<LevelTask>> tasks_;
  std::unique_ptr<asio::steady_timer> persistTimer_;
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<uint64_t> delivered_{0};
};

}  // namespace rmq::broker
