#pragma once
// Dispatcher ("reput"): the one code path that turns CommitLog bytes into ConsumeQueue units and
// index entries, then calls the ArrivalListener. Used synchronously by recovery (open()) and by
// its own thread behind appends (master) or replicated bytes (slave).
//
// Wake-up: appenders call wake() after publishing bytes; it costs one atomic load unless the
// thread sleeps (then a condition-variable notify), so a message is dispatched and announced
// within microseconds, without sleep-polling.
//
// A record whose consume-queue unit or index entries cannot be written (full disk: no file, no
// space) is never skipped: dispatch stops at it, stalled() turns true (the store refuses appends,
// like Java's logic-queue/index error bits) and the thread retries it every kStallRetry until it
// goes through; then dispatch and appends resume by themselves.
//
// Fault point dispatch_stall (common/fault_point.h): while armed the thread dispatches nothing
// (appends go on, stalled() stays false); consumers see the messages once it is disarmed.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "common/message_codec.h"
#include "store/checkpoint.h"
#include "store/commit_log.h"
#include "store/consume_queue_table.h"
#include "store/index_service.h"
#include "store/store_types.h"

namespace rmq::store {

class Dispatcher {
 public:
  Dispatcher(const StoreConfig& cfg, CommitLog& log, ConsumeQueueTable& cqs, IndexService& index,
             Checkpoint& checkpoint);
  ~Dispatcher() { stop(); }
  Result<void> init();  // parses messageDelayLevel
  void setListener(ArrivalListener l) { listener_ = std::move(l); }

  // Dispatches records in [from, to); returns where it stopped (to, before an invalid record, or
  // at a record that could not be dispatched: see stalled()).
  int64_t dispatchRange(int64_t from, int64_t to, bool notify);
  // Calls fn for each valid record in [from, to) (skipping blank file ends) until fn returns
  // false; returns where it stopped (like dispatchRange).
  int64_t forEachRecord(int64_t from, int64_t to, const std::function<bool(const RecordView&)>& fn) const;
  // One already-parsed record (recovery dispatches while it validates: a single pass). An error
  // leaves it (partly) undispatched: dispatch it again; what was written is not repeated.
  Result<void> dispatchRecord(const RecordView& r, bool notify);
  bool stalled() const { return stalled_.load(std::memory_order_acquire); }
  static constexpr std::chrono::milliseconds kStallRetry{100};
  // Commit log cut (thread stopped): dispatch goes on from `pos`; a stall at a record that was
  // cut is forgotten (dispatchRange finds a real one again).
  void rewind(int64_t pos) {
    position_.store(pos, std::memory_order_release);
    stalled_.store(false, std::memory_order_release);
  }
  void start(int64_t from);
  void stop();
  void wake() {
    if (sleeping_.load(std::memory_order_seq_cst)) {
      std::lock_guard lock(mu_);
      cv_.notify_one();
    }
  }
  // Whether the thread spins briefly before it sleeps (on: an ASYNC master, whose appender then
  // skips a futex wake-up per message; off: a slave, whose replicated batches wake it once each:
  // the spin after every batch was ~40 % of a slave dispatcher's CPU, taken from the HA thread and
  // the master on a shared box, and nothing waits on a slave's dispatch; off too under SYNC_MASTER:
  // StoreEngine::applyRoleToThreads).
  void setIdleSpin(bool on) { idleSpin_.store(on, std::memory_order_relaxed); }
  bool idleSpin() const { return idleSpin_.load(std::memory_order_relaxed); }
  int64_t position() const { return position_.load(std::memory_order_acquire); }
  int maxDelayLevel() const { return static_cast<int>(delayMillis_.size()); }
  // Delay of a level capped at maxDelayLevel(); 0 for level <= 0.
  int64_t delayMillisOf(int level) const {
    if (level <= 0 || delayMillis_.empty()) return 0;
    return delayMillis_[static_cast<size_t>(std::min(level, maxDelayLevel()) - 1)];
  }
  // Tags code a record gets in its consume queue (delivery time for SCHEDULE_TOPIC_XXXX and for
  // the parked timer messages: TIMER_WAKE_MS when rolled later, else TIMER_OUT_MS).
  int64_t tagsCodeOf(const RecordView& r) const;

 private:
  void run();
  void noteStall(int64_t pos, const Error& err);

  const StoreConfig& cfg_;
  CommitLog& log_;
  ConsumeQueueTable& cqs_;
  IndexService& index_;
  Checkpoint& checkpoint_;
  ArrivalListener listener_;
  std::vector<int64_t> delayMillis_;
  std::atomic<int64_t> position_{0};
  std::atomic<bool> sleeping_{false};
  std::atomic<bool> idleSpin_{true};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> stalled_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  std::string topicBuf_;                  // listener argument, reused
};

}  // namespace rmq::store
