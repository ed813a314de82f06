#include "store/flush_service.h"

namespace rmq::store {

void WaiterList::add(int64_t end, Clock::time_point deadline, Completion done) {
  std::lock_guard lock(mu_);
  waiters_.push_back({end, deadline, std::move(done)});
}

void WaiterList::completeUpTo(int64_t offset) {
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
  }
  for (auto& d : ready) d(PutStatus::PUT_OK);
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
  }
  for (auto& d : late) d(timeoutStatus);
}

void WaiterList::failAll(PutStatus status) {
  std::deque<Waiter> all;
  {
    std::lock_guard lock(mu_);
    all.swap(waiters_);
  }
  for (auto& w : all) w.done(status);
}

bool WaiterList::empty() const {
  std::lock_guard lock(mu_);
  return waiters_.empty();
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
  wake();
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
  int64_t ts = log_.lastStoreTimestamp();  // read before: it belongs to bytes at or below the flush
  int64_t flushed = log_.flush();
  if (ts > 0) checkpoint_.setPhysicMsgTimestamp(ts);
  flushWaiters_.completeUpTo(flushed);
}

void FlushService::run() {
  using namespace std::chrono;
  bool sync = cfg_.syncFlush();
  auto interval = sync ? milliseconds(10) : milliseconds(cfg_.flushIntervalCommitLog);
  while (!stopping_.load()) {
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, interval, [&] { return requested_ || stopping_.load(); });
      requested_ = false;
    }
    auto now = steady_clock::now();
    int64_t dirty = log_.maxOffset() - log_.flushedOffset();
    bool thorough = now - lastThorough_ >= milliseconds(cfg_.flushCommitLogThoroughInterval);
    if (dirty > 0 && (sync || thorough || dirty >= int64_t(cfg_.flushCommitLogLeastPages) * 4096)) {
      flushOnce();
      if (thorough) lastThorough_ = now;
    }
    flushWaiters_.expire(now, PutStatus::FLUSH_DISK_TIMEOUT);
    slaveWaiters_.expire(now, PutStatus::FLUSH_SLAVE_TIMEOUT);
  }
}

}  // namespace rmq::store
