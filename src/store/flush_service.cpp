#include "store/flush_service.h"
#include "store/live_store_keys.h"

#include <algorithm>
#include <pthread.h>

#include "common/atomic_max.h"

namespace rmq::store {

void WaiterList::add(int64_t end, Clock::time_point deadline, Completion done) {
  std::lock_guard lock(mu_);
  waiters_.push_back({end, deadline, std::move(done)});
  count_.store(waiters_.size(), std::memory_order_release);
  added_.fetch_add(1);  // seq_cst: see FlushService::waitFlushed
}

size_t WaiterList::completeUpTo(int64_t offset) {
  std::vector<Completion> ready;
  {
    std::lock_guard lock(mu_);
    // Mostly offset-ordered (appends register in order), but not strictly: scan all.
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->end <= offset) {
        ready.push_back(std::move(it->done));
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
    count_.store(waiters_.size(), std::memory_order_release);
  }
  completeAll(ready, PutStatus::PUT_OK);
  return ready.size();
}

void WaiterList::expire(Clock::time_point now, PutStatus timeoutStatus) {
  std::vector<Completion> late;
  {
    std::lock_guard lock(mu_);
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->deadline <= now) {
        late.push_back(std::move(it->done));
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
    count_.store(waiters_.size(), std::memory_order_release);
  }
  completeAll(late, timeoutStatus);
}

void WaiterList::failAll(PutStatus status) {
  std::vector<Completion> all;
  {
    std::lock_guard lock(mu_);
    for (auto& w : waiters_) all.push_back(std::move(w.done));
    waiters_.clear();
    count_.store(0, std::memory_order_release);
  }
  completeAll(all, status);
}

void WaiterList::failBeyond(int64_t offset, PutStatus status) {
  std::vector<Completion> gone;
  {
    std::lock_guard lock(mu_);
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->end > offset) {
        gone.push_back(std::move(it->done));
        it = waiters_.erase(it);
      } else {
        ++it;
      }
    }
    count_.store(waiters_.size(), std::memory_order_release);
  }
  completeAll(gone, status);
}

FlushService::FlushService(const StoreConfig& cfg, CommitLog& log, Checkpoint& checkpoint)
    : cfg_(cfg), log_(log), checkpoint_(checkpoint) {}

void FlushService::start() {
  stopping_ = false;
  lastThorough_ = std::chrono::steady_clock::now();
  if (!cfg_.syncFlush()) {
    threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "flusher");
      runAsync();
    });
    return;
  }
  for (size_t i = 0; i < kSyncFlushers; ++i)
    threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "flusher");
      runSync();
    });
}

void FlushService::stop() {
  if (threads_.empty()) return;
  stopping_ = true;
  {
    std::lock_guard lock(mu_);
    cv_.notify_all();
  }
  for (auto& t : threads_) t.join();
  threads_.clear();
  flushOnce();
  flushWaiters_.failAll(PutStatus::FLUSH_DISK_TIMEOUT);  // only those beyond the written end remain
  slaveWaiters_.failAll(PutStatus::SLAVE_NOT_AVAILABLE);
}

void FlushService::wake() {
  std::lock_guard lock(mu_);
  requested_ = true;
  cv_.notify_all();
}

void FlushService::waitFlushed(int64_t end, Completion done) {
  if (log_.flushedOffset() >= end) {
    statAlreadyFlushed_.fetch_add(1, std::memory_order_relaxed);
    return done(PutStatus::PUT_OK);
  }
  flushWaiters_.add(end, WaiterList::Clock::now() + std::chrono::milliseconds(liveRead(cfg_.syncFlushTimeout)),
                    std::move(done));
  // Only a send that finds a flusher asleep pays for a futex wake (about one per flush, not per
  // send). Dekker pair with claimSyncFlush(): seq_cst added() in add(), then this load.
  if (idleFlushers_.load() > 0) wake();
}

void FlushService::waitSlaveAck(int64_t end, Completion done) {
  if (slaveAcked_.load() >= end) return done(PutStatus::PUT_OK);
  slaveWaiters_.add(end, WaiterList::Clock::now() + std::chrono::milliseconds(liveRead(cfg_.syncFlushTimeout)),
                    std::move(done));
  if (slaveAcked_.load() >= end) slaveWaiters_.completeUpTo(slaveAcked_.load());  // raced with an ack
}

void FlushService::notifySlaveAck(int64_t offset) {
  slaveWaiters_.completeUpTo(atomicRaise(slaveAcked_, offset));
}

void FlushService::resetSlaveAck(int64_t offset) {
  slaveAcked_.store(offset);
  slaveWaiters_.completeUpTo(offset);
}

void FlushService::cutAt(int64_t offset, const std::function<bool()>& cut) {
  std::unique_lock lock(cutMu_);
  if (!cut()) return;
  flushWaiters_.completeUpTo(log_.flushedOffset());
  flushWaiters_.failBeyond(offset, PutStatus::SERVICE_NOT_AVAILABLE);
  slaveWaiters_.failBeyond(offset, PutStatus::SERVICE_NOT_AVAILABLE);
  int64_t acked = slaveAcked_.load();
  while (acked > offset && !slaveAcked_.compare_exchange_weak(acked, offset)) {
  }
}

void FlushService::flushOnce(bool overlapped) {
  using namespace std::chrono;
  std::shared_lock cutGuard(cutMu_);  // a commit log cut waits for this flush, and this one for a cut
  int64_t ts = log_.lastStoreTimestamp();  // read before: it belongs to bytes at or below the flush
  auto t0 = steady_clock::now();
  int64_t flushed = log_.flush();
  auto took = duration_cast<nanoseconds>(steady_clock::now() - t0).count();
  // An older timestamp from an overlapping flush is harmless: recovery then starts earlier.
  if (ts > 0) checkpoint_.setPhysicMsgTimestamp(ts);
  size_t completed = flushWaiters_.completeUpTo(flushed);
  // The disk refused (EIO): what waits beyond the durable end is not durable now, so it gets
  // FLUSH_DISK_TIMEOUT at once (the code Java's group commit gives a request its flush did not
  // reach). Stricter than Java 4.9.8, whose MappedFile.flush logs a failed force() and advances
  // its flushed position anyway, so its waiters get SEND_OK. The bytes stay written; the next
  // flush retries.
  if (log_.flushFailing()) flushWaiters_.failAll(PutStatus::FLUSH_DISK_TIMEOUT);
  if (completed == 0) return;
  statFlushes_.fetch_add(1, std::memory_order_relaxed);
  statWaiters_.fetch_add(completed, std::memory_order_relaxed);
  statFlushNanos_.fetch_add(uint64_t(took), std::memory_order_relaxed);
  if (overlapped) statOverlapped_.fetch_add(1, std::memory_order_relaxed);
  flushSeconds_.observe(double(took) / 1e9);
  batchSize_.observe(double(completed));
}

std::optional<size_t> FlushService::claimSyncFlush(std::chrono::nanoseconds idle) {
  std::unique_lock lock(mu_);
  auto ready = [&] { return inflight_ < kSyncFlushers && flushWaiters_.added() > startedUpTo_; };
  if (!ready()) {
    idleFlushers_.fetch_add(1);  // before ready() is read again under the wait
    cv_.wait_for(lock, idle, [&] { return stopping_.load() || ready(); });
    idleFlushers_.fetch_sub(1);
  }
  if (stopping_.load() || !ready()) {
    idleSince_ = {};  // an idle spell, not a gap between batches
    return std::nullopt;
  }
  startedUpTo_ = flushWaiters_.added();  // read before flushOnce() reads the written end
  if (inflight_ == 0 && idleSince_ != std::chrono::steady_clock::time_point{}) {
    statCycles_.fetch_add(1, std::memory_order_relaxed);
    auto gap = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - idleSince_);
    statGapNanos_.fetch_add(uint64_t(gap.count()), std::memory_order_relaxed);
  }
  return inflight_++;
}

void FlushService::releaseSyncFlush() {
  std::lock_guard lock(mu_);
  if (--inflight_ == 0) idleSince_ = std::chrono::steady_clock::now();
  cv_.notify_all();  // a flusher waiting for a slot
}

void FlushService::expireWaiters() {
  auto now = std::chrono::steady_clock::now();
  flushWaiters_.expire(now, PutStatus::FLUSH_DISK_TIMEOUT);
  slaveWaiters_.expire(now, PutStatus::FLUSH_SLAVE_TIMEOUT);
}

GroupCommitStats FlushService::groupCommitStats() const {
  return {statFlushes_.load(), statWaiters_.load(), statFlushNanos_.load(), statOverlapped_.load(),
          statCycles_.load(), statGapNanos_.load(), statAlreadyFlushed_.load()};
}

GroupCommitHistograms FlushService::groupCommitHistograms() const {
  return {flushSeconds_.snapshot(), batchSize_.snapshot()};
}

bool FlushService::claimIdleFlush() {
  std::lock_guard lock(mu_);
  if (stopping_.load() || inflight_ > 0 || log_.flushedOffset() >= log_.maxOffset()) return false;
  ++inflight_;
  return true;
}

void FlushService::releaseIdleFlush() {
  std::lock_guard lock(mu_);
  --inflight_;
  cv_.notify_all();  // a waiter that came meanwhile
}

void FlushService::runSync() {
  // Flushes are started by waiters. When none came for 10 ms, whatever is dirty is flushed all the
  // same, as Java's GroupCommitService.doCommit (`flush(0)` with no request): the bytes of messages
  // sent with WAIT=false, and all of a slave's (replicated appends have no waiters).
  while (!stopping_.load()) {
    if (auto inFlight = claimSyncFlush(std::chrono::milliseconds(10))) {
      flushOnce(*inFlight > 0);
      releaseSyncFlush();
    } else if (claimIdleFlush()) {
      flushOnce();
      releaseIdleFlush();
    }
    expireWaiters();
  }
}

void FlushService::runAsync() {
  using namespace std::chrono;
  while (!stopping_.load()) {
    {
      const auto interval = milliseconds(liveRead(cfg_.flushIntervalCommitLog));  // UPDATE_BROKER_CONFIG: next wait
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, interval, [&] { return requested_ || stopping_.load(); });
      requested_ = false;
    }
    auto now = steady_clock::now();
    int64_t dirty = log_.maxOffset() - log_.flushedOffset();
    bool thorough = now - lastThorough_ >= milliseconds(liveRead(cfg_.flushCommitLogThoroughInterval));
    if (dirty > 0 && (thorough || dirty >= int64_t(liveRead(cfg_.flushCommitLogLeastPages)) * 4096)) {
      flushOnce();
      if (thorough) lastThorough_ = now;
    }
    expireWaiters();
  }
}

}  // namespace rmq::store
