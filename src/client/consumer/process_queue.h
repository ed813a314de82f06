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

namespace rmq::client {

class ProcessQueue {
 public:
  void put(const std::vector<MessageExt>& msgs) {
    std::lock_guard lk(mu_);
    for (const auto& m : msgs) {
      msgs_.emplace(m.queueOffset, m.queueOffset);
      if (m.queueOffset > maxOffset_) maxOffset_ = m.queueOffset;
    }
  }
  // Removes consumed messages; returns the offset to commit (the smallest still in flight, or
  // one past the highest seen when nothing is left), -1 if nothing was ever put.
  int64_t remove(const std::vector<MessageExt>& msgs) {
    std::lock_guard lk(mu_);
    for (const auto& m : msgs) msgs_.erase(m.queueOffset);
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

  std::atomic<bool> dropped{false};
  std::atomic<int64_t> lastPullTimestamp{0};
  // Orderly consumption: the broker lock of this queue (granted / last renewed, ms) and its messages.
  std::atomic<bool> locked{false};
  std::atomic<int64_t> lastLockTimestamp{0};
  OrderlyQueue orderly;

 private:
  mutable std::mutex mu_;
  std::map<int64_t, int64_t> msgs_;  // queue offsets in flight (bodies live in the consume tasks)
  int64_t maxOffset_ = -1;
};

}  // namespace rmq::client
