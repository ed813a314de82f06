#pragma once
// FlushService: the commit log flusher threads (never a network thread).
//  - SYNC_FLUSH: pipelined group commit. Waiters (end offset + completion) queue up; a flush
//    msyncs everything written so far and completes every waiter at or below the flushed end,
//    so one msync covers all concurrent sends. kSyncFlushers flushes may be in flight at once:
//    a flusher starts as soon as it is free and a waiter is pending that no started flush
//    covers. A single flusher has to choose between flushing the few senders that came back
//    early (and splitting the rest into a second batch that waits a whole flush) and waiting for
//    stragglers (disk idle meanwhile); with two, the early ones go at once and the stragglers
//    ride the next flush while the first is still on the disk, which serves flushes in
//    parallel (measured: 1 durable write thread 2,145/s, 2 threads 3,469/s; notes in
//    src/store/README.md). A later flush msyncs from the durable end, so it covers (and waits for)
//    the pages an earlier one is writing: whichever ends first, the durable end it reports is
//    durable. Waiters older than syncFlushTimeout get FLUSH_DISK_TIMEOUT.
//  - ASYNC_FLUSH: one thread flushes every flushIntervalCommitLog ms once
//    flushCommitLogLeastPages are dirty (or flushCommitLogThoroughInterval passed).
// Also expires the replication seam's slave-ack waiters. A batch is released by completeAll (one
// post per network thread); executor-less completions run on this thread and must only post.
#include <atomic>
#include <cstdint>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <shared_mutex>
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
  // PUT_OK for end <= offset; returns how many.
  size_t completeUpTo(int64_t offset);
  void expire(Clock::time_point now, PutStatus timeoutStatus);
  void failAll(PutStatus status);
  void failBeyond(int64_t offset, PutStatus status);  // those with end > offset
  bool empty() const { return size() == 0; }
  size_t size() const { return count_.load(std::memory_order_acquire); }
  uint64_t added() const { return added_.load(); }  // waiters ever added (seq_cst: see claimSyncFlush)

 private:
  struct Waiter {
    int64_t end;
    Clock::time_point deadline;
    Completion done;
  };
  mutable std::mutex mu_;
  std::deque<Waiter> waiters_;
  std::atomic<size_t> count_{0};  // waiters_.size(), readable without the lock
  std::atomic<uint64_t> added_{0};
};

class FlushService {
 public:
  FlushService(const StoreConfig& cfg, CommitLog& log, Checkpoint& checkpoint);
  ~FlushService() { stop(); }
  void start();
  void stop();  // final flush, pending waiters completed (or failed when not flushed)

  // SYNC_FLUSH: completes when [.., end) is durable. Wakes an idle flusher at once.
  void waitFlushed(int64_t end, Completion done);
  void waitSlaveAck(int64_t end, Completion done);
  void notifySlaveAck(int64_t offset);
  void resetSlaveAck(int64_t offset);  // exactly `offset`, lower or higher (failover)
  // Commit log truncation (MessageStore::truncateTo): runs `cut` while no flush is in flight
  // (flushes wait for it, so none raises the durable end with a position read before the cut
  // or completes a waiter with it); when it returns true (it cut), completes the flush waiters at or below the durable
  // end, fails every waiter (flush and slave ack) beyond `offset` with SERVICE_NOT_AVAILABLE
  // (their bytes are gone: the producer sends again) and lowers the slave-acked offset to
  // `offset` (the caller drops the HA connections: an ack still in flight would raise it again).
  void cutAt(int64_t offset, const std::function<bool()>& cut);
  int64_t slaveAckedOffset() const { return slaveAcked_.load(); }
  void wake();
  GroupCommitStats groupCommitStats() const;
  GroupCommitHistograms groupCommitHistograms() const;

  static constexpr size_t kSyncFlushers = 2;

 private:
  void runAsync();
  void runSync();
  // Waits (up to `idle`) for a free flush slot and a waiter no started flush covers. When this
  // thread took the slot (then it must flush and call releaseSyncFlush()): the flushes that were
  // already in flight.
  std::optional<size_t> claimSyncFlush(std::chrono::nanoseconds idle);
  void releaseSyncFlush();
  // SYNC_FLUSH with no waiter for a while: the one flusher that finds no flush in flight and dirty
  // bytes takes the slot (then flushes and calls releaseIdleFlush()); false otherwise.
  bool claimIdleFlush();
  void releaseIdleFlush();
  void flushOnce(bool overlapped = false);
  void expireWaiters();

  const StoreConfig& cfg_;
  CommitLog& log_;
  Checkpoint& checkpoint_;
  WaiterList flushWaiters_;
  WaiterList slaveWaiters_;
  std::atomic<int64_t> slaveAcked_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  // Shared by every flush (flush + waiter completion), exclusive for cutAt(): flushes still
  // overlap each other (two SYNC flushers), a cut waits for the ones in flight.
  std::shared_mutex cutMu_;
  bool requested_ = false;
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> threads_;
  std::chrono::steady_clock::time_point lastThorough_;
  // SYNC_FLUSH slots (under mu_): flushes in flight; flushWaiters_.added() when the latest started
  // (everything added before is covered); since when no flush is in flight (disk idle).
  size_t inflight_ = 0;
  uint64_t startedUpTo_ = 0;
  std::chrono::steady_clock::time_point idleSince_{};
  std::atomic<int> idleFlushers_{0};  // flushers asleep in claimSyncFlush: waitFlushed wakes them
  std::atomic<uint64_t> statFlushes_{0}, statWaiters_{0}, statFlushNanos_{0}, statOverlapped_{0};
  std::atomic<uint64_t> statAlreadyFlushed_{0};
  std::atomic<uint64_t> statCycles_{0}, statGapNanos_{0};
  metrics::Histogram flushSeconds_{metrics::Histogram::flushSeconds()};  // per flush that had waiters
  metrics::Histogram batchSize_{metrics::Histogram::batchSizes()};       // waiters it completed
};

}  // namespace rmq::store
