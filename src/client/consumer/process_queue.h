#pragma once
// ProcessQueue: the messages pulled from one queue and not yet consumed (Java ProcessQueue).
// Filled by the pull loop (io thread), drained by consume threads; guarded by its own mutex.
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "client/consumer/orderly_queue.h"
#include "common/message.h"
#include "common/wall_clock.h"

namespace rmq::client {

// The cached part of Java's ProcessQueueInfo (fillProcessQueueInfo): zeros when nothing is cached.
struct CachedMessages {
  int64_t minOffset = 0;
  int64_t maxOffset = 0;
  int64_t count = 0;
  int64_t sizeInMiB = 0;  // bodies, as Java's msgSize
};

class ProcessQueue {
 public:
  void put(const std::vector<MessageExt>& msgs) {
    std::lock_guard lk(mu_);
    for (const auto& m : msgs) {
      if (msgs_.emplace(m.queueOffset, static_cast<int64_t>(m.body.size())).second) bodyBytes_ += m.body.size();
      if (m.queueOffset > maxOffset_) maxOffset_ = m.queueOffset;
    }
  }
  // Removes consumed messages; returns the offset to commit (the smallest still in flight, or
  // one past the highest seen when nothing is left), -1 if nothing was ever put.
  int64_t remove(const std::vector<MessageExt>& msgs) {
    lastConsumeTimestamp = nowMillis();
    std::lock_guard lk(mu_);
    for (const auto& m : msgs) {
      if (auto it = msgs_.find(m.queueOffset); it != msgs_.end()) {
        bodyBytes_ -= it->second;
        msgs_.erase(it);
      }
    }
    if (maxOffset_ < 0) return -1;
    return msgs_.empty() ? maxOffset_ + 1 : msgs_.begin()->first;
  }
  size_t count() const { std::lock_guard lk(mu_); return msgs_.size(); }
  int64_t span() const {
    std::lock_guard lk(mu_);
    return msgs_.empty() ? 0 : msgs_.rbegin()->first - msgs_.begin()->first;
  }
  int64_t minOffset() const { std::lock_guard lk(mu_); return msgs_.empty() ? -1 : msgs_.begin()->first; }
  int64_t maxOffset() const { std::lock_guard lk(mu_); return maxOffset_; }
  CachedMessages cached() const {
    std::lock_guard lk(mu_);
    if (msgs_.empty()) return {.sizeInMiB = bodyBytes_ / (1024 * 1024)};
    return {msgs_.begin()->first, msgs_.rbegin()->first, static_cast<int64_t>(msgs_.size()), bodyBytes_ / (1024 * 1024)};
  }

  std::atomic<bool> dropped{false};
  std::atomic<int64_t> lastPullTimestamp{0};
  // Last time consumed messages left the queue (Java: set at creation, then by each removal or
  // orderly commit); startMonitoring judges a queue "blocked" by it.
  std::atomic<int64_t> lastConsumeTimestamp{nowMillis()};
  // Orderly consumption: the broker lock of this queue (granted / last renewed, ms) and its messages.
  std::atomic<bool> locked{false};
  std::atomic<int64_t> lastLockTimestamp{0};
  std::atomic<int64_t> tryUnlockTimes{0};  // unlocks given up because the listener still ran
  OrderlyQueue orderly;

 private:
  mutable std::mutex mu_;
  std::map<int64_t, int64_t> msgs_;  // queue offset in flight -> body size (bodies live in the consume tasks)
  int64_t bodyBytes_ = 0;
  int64_t maxOffset_ = -1;
};

}  // namespace rmq::client
