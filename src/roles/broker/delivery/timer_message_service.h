#pragma once
// TimerMessageService: delivers timer messages (RocketMQ 5.x TIMER_* properties; README "Timer").
// The store parks them in rmq_sys_wheel_timer queue 0 (store/timer_rewrite.h) with tags code =
// delivery time; this service keeps the pending ones in a TimerIndex, and at each delivery
// millisecond re-puts them to REAL_TOPIC / REAL_QID through the delay levels' path
// (stored_message.h timeupMessage), at most timerMaxDeliverRate a second (token bucket; a large
// millisecond is split), then appends a TimerProgress record to queue 1. Its whole
// durable state is in the commit log: a slave has it byte for byte, a promoted slave rebuilds
// from it (start()).
//
// A delete marker (TIMER_DEL_UNIQKEY = <topic>+<UNIQ_KEY>, same delivery time) is parked like the
// message it cancels; both pop in the same group (same millisecond) and the marker wins.
//
// A unit's time is the copy's wake (tags code): for a timer farther than the roll window
// (timerRollWindowSlot) it is earlier than TIMER_OUT_MS, and at that wake the copy is re-parked
// ("rolled", store/timer_rewrite.h timerWakeMs) instead of delivered, so no pending timer's body
// sits in a commit-log file old enough for retention. The last wake of every copy is its
// TIMER_OUT_MS, so a rolled marker still meets its target there.
//
// Threads: one dedicated thread (store reads/appends, never a network thread). wake() is called
// on the dispatcher thread when a unit reaches queue 0.
// Lifecycle: construct, start() (masters only: rebuilds, then delivers), shutdown() (idempotent).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>
#include <string>
#include <thread>
#include <vector>

#include "common/message_codec.h"
#include "roles/broker/delivery/timer_index.h"

namespace rmq::store {
class MessageStore;
struct StoreConfig;
}  // namespace rmq::store

namespace rmq::broker {

struct TimerStats {
  bool running = false;
  uint64_t pending = 0;         // entries in the index (delete markers included)
  uint64_t delivered = 0;       // re-put to their real topic since start
  uint64_t cancelled = 0;       // dropped by a delete marker since start
  uint64_t rolled = 0;          // far timers re-parked closer to their time since start
  uint64_t indexBytes = 0;      // RAM of the index
  int64_t overdueMs = 0;        // now - the earliest pending time when it is due (backlog), else 0
  int64_t lagP50Ms = 0, lagP99Ms = 0, lagMaxMs = 0;  // delivery lag (store time - due time), recent 8192
  uint64_t lagSamples = 0;
};

class TimerMessageService {
 public:
  // progressIntervalMs: least ms between two progress records (a kill -9 redelivers at most what
  // was delivered in the last interval).
  TimerMessageService(store::MessageStore& store, const store::StoreConfig& cfg, int64_t progressIntervalMs = 20);
  ~TimerMessageService();

  void start();
  void shutdown();
  void wake();
  TimerStats stats() const;
  // Key=value lines for GET_BROKER_RUNTIME_INFO (5.x names where 5.x has one).
  std::vector<std::pair<std::string, std::string>> runtimeInfo() const;

 private:
  void run();
  void rebuild();
  void readNew();
  // Delivers due groups within the rate budget; returns how many entries it took off the index.
  size_t deliverDue(int64_t now);
  // Re-puts up to `budget` entries of a group (same ms); what is left of it (and its delete
  // markers, still needed by the rest) goes back into the index. Returns how many it took off
  // (delivered, cancelled or unreadable) and the key of the last one; taken 0 = the store refused.
  struct GroupResult {
    size_t taken = 0;
    TimerEntry last;
  };
  GroupResult deliverGroup(const std::vector<TimerEntry>& group, int64_t now, size_t budget);
  bool deliverRecord(const RecordView& rec, int64_t deliverMs, int64_t now, bool& retry);
  bool rollRecord(const RecordView& rec, int64_t outMs, int64_t now, bool& retry);
  void noteLag(int64_t lagMs);
  void writeProgress(bool force);
  int64_t waitMillis(int64_t now) const;

  store::MessageStore& store_;
  const store::StoreConfig& cfg_;
  const int64_t progressIntervalMs_;

  mutable std::mutex mu_;  // index_, progress fields, lags_
  std::mutex wakeMu_;       // cv_ and woken_ only: wake() never waits for a delivery pass
  std::condition_variable cv_;
  bool woken_ = false;
  TimerIndex index_;
  TimerProgress done_;          // the done key so far + readOffset
  int64_t scanFrom_ = 0;        // cached lower bound of the pending queue offsets
  int64_t scanFromAtMs_ = 0;
  int64_t lastProgressMs_ = 0;
  bool progressDirty_ = false;
  double tokens_ = 0;
  int64_t tokensAtMs_ = 0;
  std::vector<int64_t> lags_;   // ring of recent lags
  size_t lagNext_ = 0;
  uint64_t lagSamples_ = 0;

  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<uint64_t> delivered_{0};
  std::atomic<uint64_t> cancelled_{0};
  std::atomic<uint64_t> rolled_{0};
};

}  // namespace rmq::broker
