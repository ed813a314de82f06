#include "store/flush_service.h"

#include <algorithm>

namespace rmq::store {

void WaiterList::add(int64_t end, Clock::time_point deadline, Completion done) {
  std::lock_guard lock(mu_);
  waiters_.push_back({end, deadline, std::move(done)});
  lastAdd_.store(Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  count_.store(waiters_.size());  // seq_cst: see FlushService::waitFlushed
}

size_t WaiterList::completeUpTo(int64_t offset, size_t* remaining) {
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
    if (remaining) *remaining = waiters_.size();  // before the completed ones can come back
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

FlushService::FlushService(const StoreConfig& cfg, CommitLog& log, Checkpoint& checkpoint)
    : cfg_(cfg), log_(log), checkpoint_(checkpoint) {}

void FlushService::start() {
  stopping_ = false;
  lastThorough_ = std::chrono::steady_clock::now();
  thread_ = std::thread([this] { run(); });
}

void FlushService::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  wake();
  thread_.join();
  flushOnce();
  flushWaiters_.failAll(PutStatus::FLUSH_DISK_TIMEOUT);  // only those beyond the written end remain
  slaveWaiters_.failAll(PutStatus::SLAVE_NOT_AVAILABLE);
}

void FlushService::wake() {
  std::lock_guard lock(mu_);
  requested_ = true;
  cv_.notify_one();
}

void FlushService::waitFlushed(int64_t end, Completion done) {
  if (log_.flushedOffset() >= end) return done(PutStatus::PUT_OK);
  flushWaiters_.add(end, WaiterList::Clock::now() + std::chrono::milliseconds(cfg_.syncFlushTimeout), std::move(done));
  // Only the waiter the flusher is waiting for pays for a futex wake (one per batch, not per send).
  // Dekker pair with sleepUntil(): seq_cst count store in add(), then this load.
  if (flushWaiters_.size() >= wakeAt_.load()) wake();
}

void FlushService::waitSlaveAck(int64_t end, Completion done) {
  if (slaveAcked_.load() >= end) return done(PutStatus::PUT_OK);
  slaveWaiters_.add(end, WaiterList::Clock::now() + std::chrono::milliseconds(cfg_.syncFlushTimeout), std::move(done));
  if (slaveAcked_.load() >= end) slaveWaiters_.completeUpTo(slaveAcked_.load());  // raced with an ack
}

void FlushService::notifySlaveAck(int64_t offset) {
  int64_t cur = slaveAcked_.load();
  while (offset > cur && !slaveAcked_.compare_exchange_weak(cur, offset)) {
  }
  slaveWaiters_.completeUpTo(slaveAcked_.load());
}

void FlushService::flushOnce() {
  using namespace std::chrono;
  int64_t ts = log_.lastStoreTimestamp();  // read before: it belongs to bytes at or below the flush
  auto t0 = steady_clock::now();
  int64_t flushed = log_.flush();
  auto t1 = steady_clock::now();
  auto took = duration_cast<nanoseconds>(t1 - t0).count();
  if (ts > 0) checkpoint_.setPhysicMsgTimestamp(ts);
  size_t remaining = 0;
  size_t completed = flushWaiters_.completeUpTo(flushed, &remaining);
  // The disk refused (EIO): what waits beyond the durable end is not durable now. Java's group
  // commit answers a request its flush did not cover FLUSH_DISK_TIMEOUT right after that flush;
  // so do we, rather than after syncFlushTimeout. The bytes stay written; the next flush retries.
  if (log_.flushFailing()) flushWaiters_.failAll(PutStatus::FLUSH_DISK_TIMEOUT);
  if (completed == 0) {
    lastFlushEnd_ = {};
    return;
  }
  // In flight = those just served + those that arrived during the flush.
  expectedBatch_ = completed + remaining;
  flushNanosEwma_ = flushNanosEwma_ == 0 ? double(took) : 0.8 * flushNanosEwma_ + 0.2 * double(took);
  statFlushes_.fetch_add(1, std::memory_order_relaxed);
  statWaiters_.fetch_add(completed, std::memory_order_relaxed);
  statFlushNanos_.fetch_add(uint64_t(took), std::memory_order_relaxed);
  flushSeconds_.observe(double(took) / 1e9);
  batchSize_.observe(double(completed));
  if (lastFlushEnd_ != steady_clock::time_point{}) {  // back-to-back batches: the idle disk time between
    statCycles_.fetch_add(1, std::memory_order_relaxed);
    statGapNanos_.fetch_add(uint64_t(duration_cast<nanoseconds>(t0 - lastFlushEnd_).count()), std::memory_order_relaxed);
  }
  lastFlushEnd_ = t1;
}

// The senders a flush released come back about one round trip later; waiting for them costs at
// most this window, while flushing without them costs a whole extra flush for the stragglers.
std::chrono::nanoseconds FlushService::gatherWindow() const {
  using namespace std::chrono;
  auto ewma = nanoseconds(int64_t(flushNanosEwma_));
  return std::clamp<nanoseconds>(ewma, microseconds(50), milliseconds(2));
}

bool FlushService::gatherBatch(std::chrono::steady_clock::time_point deadline,
                               std::chrono::steady_clock::time_point since) {
  using namespace std::chrono;
  const size_t expected = expectedBatch_;
  if (expected <= 1) return false;
  const auto flushTime = nanoseconds(int64_t(flushNanosEwma_));
  const auto t0 = steady_clock::now();
  bool slept = false;
  while (!stopping_.load()) {
    const size_t pending = flushWaiters_.size();
    const auto now = steady_clock::now();
    if (pending >= expected || now >= deadline) break;
    auto until = deadline;
    size_t wakeAt = expected;
    if (pending == 0) {
      wakeAt = 1;  // the first arrival starts the clock
    } else {
      // Waiting pays while arrivals come faster than flushing the `pending` now would serve them:
      // pending per (flush time + gap so far). The next one must come within that much of the last.
      auto patience = duration_cast<nanoseconds>(flushTime + (now - since)) / static_cast<int64_t>(pending);
      until = std::min(deadline, flushWaiters_.lastArrival() + patience);
      if (until <= now) break;  // arrivals dried up: stragglers go with the next flush
    }
    sleepUntil(until, wakeAt);
    slept = true;
  }
  if (slept)
    statGatherNanos_.fetch_add(uint64_t(duration_cast<nanoseconds>(steady_clock::now() - t0).count()),
                               std::memory_order_relaxed);
  return slept;
}

void FlushService::awaitSyncBatch(std::chrono::nanoseconds idleInterval) {
  using namespace std::chrono;
  // Right after a flush that released a batch: wait for that batch to come back, for at most one
  // window from that flush's end; then flush whoever is there.
  bool waited = lastFlushEnd_ != steady_clock::time_point{} &&
                gatherBatch(lastFlushEnd_ + gatherWindow(), lastFlushEnd_);
  if (flushWaiters_.size() >= std::max<size_t>(1, expectedBatch_) || (waited && !flushWaiters_.empty())) return;
  if (flushWaiters_.empty()) {  // idle: the first waiter wakes us, then the rest get one window
    lastFlushEnd_ = {};
    sleepUntil(steady_clock::now() + idleInterval, 1);
  }
  auto now = steady_clock::now();
  if (!flushWaiters_.empty()) gatherBatch(now + gatherWindow(), now);
}

void FlushService::sleepUntil(std::chrono::steady_clock::time_point deadline, size_t waiters) {
  std::unique_lock lock(mu_);
  wakeAt_.store(waiters);
  cv_.wait_until(lock, deadline,
                 [&] { return requested_ || stopping_.load() || flushWaiters_.size() >= waiters; });
  wakeAt_.store(kBusy);  // flushing: the next pass looks at the waiters anyway
  requested_ = false;
}

GroupCommitStats FlushService::groupCommitStats() const {
  return {statFlushes_.load(), statWaiters_.load(), statFlushNanos_.load(), statGatherNanos_.load(),
          statCycles_.load(), statGapNanos_.load()};
}

GroupCommitHistograms FlushService::groupCommitHistograms() const {
  return {flushSeconds_.snapshot(), batchSize_.snapshot()};
}

void FlushService::run() {
  using namespace std::chrono;
  bool sync = cfg_.syncFlush();
  auto interval = sync ? milliseconds(10) : milliseconds(cfg_.flushIntervalCommitLog);
  while (!stopping_.load()) {
    if (sync) awaitSyncBatch(interval);
    else sleepUntil(steady_clock::now() + interval, 1);
    auto now = steady_clock::now();
    int64_t dirty = log_.maxOffset() - log_.flushedOffset();
    bool thorough = now - lastThorough_ >= milliseconds(cfg_.flushCommitLogThoroughInterval);
    if (dirty > 0 && (sync || thorough || dirty >= int64_t(cfg_.flushCommitLogLeastPages) * 4096)) {
      flushOnce();
      if (thorough) lastThorough_ = now;
    }
    now = steady_clock::now();
    flushWaiters_.expire(now, PutStatus::FLUSH_DISK_TIMEOUT);
    slaveWaiters_.expire(now, PutStatus::FLUSH_SLAVE_TIMEOUT);
  }
}

}  // namespace rmq::store
