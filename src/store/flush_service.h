#pragma once
// FlushService: the commit log flusher thread (never a network thread).
//  - SYNC_FLUSH: group commit. Waiters (end offset + completion) queue up; each pass msyncs
//    everything written so far and completes every waiter at or below the flushed end, so one
//    msync covers all concurrent sends. Waiters older than syncFlushTimeout get FLUSH_DISK_TIMEOUT.
//    Batch gathering: the senders completed by one flush come back (their next send) a moment
//    later; flushing at the first one's wake-up would split them over two flushes and halve the
//    batch. So a pass first waits until as many waiters are pending as the previous flush
//    served (the in-flight estimate), for at most about one flush latency (EWMA of msync time)
//    from the previous flush's end (or from the first arrival after an idle spell): woken when
//    half the batch is back, then by the waiter that completes it, or earlier when arrivals slow
//    down (the next one not within (flush time + gap so far) / pending of the last: flushing the
//    pending ones at once then serves more per unit of time than waiting for a straggler, e.g. a
//    slow client). A lone sender (estimate 1) is flushed at once. Delays only, never acks early.
//  - ASYNC_FLUSH: flushes every flushIntervalCommitLog ms once flushCommitLogLeastPages are dirty
//    (or flushCommitLogThoroughInterval passed).
// Also expires the replication seam's slave-ack waiters. A batch is released by completeAll (one
// post per network thread); executor-less completions run on this thread and must only post.
#include <atomic>
#include <cstdint>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "store/checkpoint.h"
#include "store/commit_log.h"
#include "store/completion.h"
#include "store/store_config.h"
#include "store/store_types.h"

namespace rmq::store {

// Offset-ordered completions; thread-safe.
class WaiterList {
 public:
  using Clock = std::chrono::steady_clock;
  void add(int64_t end, Clock::time_point deadline, Completion done);
  // PUT_OK for end <= offset; returns how many; `remaining` = those left, counted before completing.
  size_t completeUpTo(int64_t offset, size_t* remaining = nullptr);
  void expire(Clock::time_point now, PutStatus timeoutStatus);
  void failAll(PutStatus status);
  bool empty() const { return size() == 0; }
  size_t size() const { return count_.load(std::memory_order_acquire); }
  Clock::time_point lastArrival() const { return Clock::time_point(Clock::duration(lastAdd_.load(std::memory_order_relaxed))); }

 private:
  struct Waiter {
    int64_t end;
    Clock::time_point deadline;
    Completion done;
  };
  mutable std::mutex mu_;
  std::deque<Waiter> waiters_;
  std::atomic<size_t> count_{0};  // waiters_.size(), readable without the lock
  std::atomic<Clock::rep> lastAdd_{0};  // when the latest waiter was added
};

class FlushService {
 public:
  FlushService(const StoreConfig& cfg, CommitLog& log, Checkpoint& checkpoint);
  ~FlushService() { stop(); }
  void start();
  void stop();  // final flush, pending waiters completed (or failed when not flushed)

  // SYNC_FLUSH: completes when [.., end) is durable. Wakes the flusher at once.
  void waitFlushed(int64_t end, Completion done);
  void waitSlaveAck(int64_t end, Completion done);
  void notifySlaveAck(int64_t offset);
  int64_t slaveAckedOffset() const { return slaveAcked_.load(); }
  void wake();
  GroupCommitStats groupCommitStats() const;
  GroupCommitHistograms groupCommitHistograms() const;

 private:
  void run();
  void flushOnce();
  // SYNC_FLUSH: sleeps until the expected batch is pending (or the windows pass, or idle).
  void awaitSyncBatch(std::chrono::nanoseconds idleInterval);
  // Sleeps until the expected batch is pending, the deadline, or the arrivals (counted from
  // `since`) slow down so that flushing now serves more per unit of time; false if it never slept.
  bool gatherBatch(std::chrono::steady_clock::time_point deadline, std::chrono::steady_clock::time_point since);
  std::chrono::nanoseconds gatherWindow() const;
  // Sleeps until `waiters` flush waiters are pending, wake() is called, or the deadline.
  void sleepUntil(std::chrono::steady_clock::time_point deadline, size_t waiters);

  const StoreConfig& cfg_;
  CommitLog& log_;
  Checkpoint& checkpoint_;
  WaiterList flushWaiters_;
  WaiterList slaveWaiters_;
  std::atomic<int64_t> slaveAcked_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool requested_ = false;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::chrono::steady_clock::time_point lastThorough_;
  // Flusher-thread state of batch gathering.
  size_t expectedBatch_ = 1;
  static constexpr size_t kBusy = SIZE_MAX;
  std::atomic<size_t> wakeAt_{kBusy};  // pending-waiter count at which waitFlushed() wakes us
  double flushNanosEwma_ = 0;
  std::chrono::steady_clock::time_point lastFlushEnd_{};  // of the last flush that completed waiters
  std::atomic<uint64_t> statFlushes_{0}, statWaiters_{0}, statFlushNanos_{0}, statGatherNanos_{0};
  std::atomic<uint64_t> statCycles_{0}, statGapNanos_{0};
  metrics::Histogram flushSeconds_{metrics::Histogram::flushSeconds()};  // per flush that had waiters
  metrics::Histogram batchSize_{metrics::Histogram::batchSizes()};       // waiters it completed
};

}  // namespace rmq::store
