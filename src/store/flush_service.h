#pragma once
// FlushService: the commit log flusher thread (never a network thread).
//  - SYNC_FLUSH: group commit. Waiters (end offset + completion) queue up; each pass msyncs
//    everything written so far and completes every waiter at or below the flushed end, so one
//    msync covers all concurrent sends. Waiters older than syncFlushTimeout get FLUSH_DISK_TIMEOUT.
//  - ASYNC_FLUSH: flushes every flushIntervalCommitLog ms once flushCommitLogLeastPages are dirty
//    (or flushCommitLogThoroughInterval passed).
// Also expires the replication seam's slave-ack waiters. Completions run on this thread; they
// must only post (MessageStore::wrap does).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "store/checkpoint.h"
#include "store/commit_log.h"
#include "store/store_config.h"
#include "store/store_types.h"

namespace rmq::store {

using Completion = std::function<void(PutStatus)>;

// Offset-ordered completions; thread-safe.
class WaiterList {
 public:
  using Clock = std::chrono::steady_clock;
  void add(int64_t end, Clock::time_point deadline, Completion done);
  void completeUpTo(int64_t offset);                         // PUT_OK for end <= offset
  void expire(Clock::time_point now, PutStatus timeoutStatus);
  void failAll(PutStatus status);
  bool empty() const;

 private:
  struct Waiter {
    int64_t end;
    Clock::time_point deadline;
    Completion done;
  };
  mutable std::mutex mu_;
  std::deque<Waiter> waiters_;
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

 private:
  void run();
  void flushOnce();

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
};

}  // namespace rmq::store
