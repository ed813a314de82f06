#pragma once
// OrderlyQueue: the message side of a ProcessQueue for orderly consumption (Java ProcessQueue's
// msgTreeMap / consumingMsgOrderlyTreeMap / consuming flag). Messages wait in queue-offset order;
// take() moves the first batch to "consuming", commit() drops it, rollback() puts it back in front
// (SUSPEND_CURRENT_QUEUE_A_MOMENT). At most one consume task runs per queue (tryStart/take), and it
// holds at most one batch: each taken batch is committed or rolled back before the next take().
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "common/message.h"

namespace rmq::client {

class OrderlyQueue {
 public:
  // Java's transactionMsgMinOffset / MaxOffset / Count: the batch the listener holds (zeros: none).
  struct Consuming {
    int64_t minOffset = 0;
    int64_t maxOffset = 0;
    int64_t count = 0;
  };

  // Adds pulled messages; true when no consume task runs, the caller must start one.
  bool put(const std::vector<MessageExt>& msgs) {
    std::lock_guard lk(mu_);
    for (const auto& m : msgs) waiting_.emplace(m.queueOffset, m);
    if (running_ || waiting_.empty()) return false;
    running_ = true;
    return true;
  }
  // Up to n messages in queue order (moved to "consuming"); empty = nothing left and the task ends.
  std::vector<MessageExt> take(size_t n) {
    std::lock_guard lk(mu_);
    std::vector<MessageExt> out;
    while (out.size() < n && !waiting_.empty()) {
      auto it = waiting_.begin();
      out.push_back(it->second);
      waiting_.erase(it);
    }
    if (out.empty()) running_ = false;
    else consuming_ = {out.front().queueOffset, out.back().queueOffset, static_cast<int64_t>(out.size())};
    return out;
  }
  // A batch back in front (retry in place), with its updated reconsume counts.
  void rollback(const std::vector<MessageExt>& batch) {
    std::lock_guard lk(mu_);
    for (const auto& m : batch) waiting_.insert_or_assign(m.queueOffset, m);
    consuming_ = {};
  }
  // The taken batch is done (consumed, or sent back): no longer "consuming".
  void commit() {
    std::lock_guard lk(mu_);
    consuming_ = {};
  }
  Consuming consuming() const {
    std::lock_guard lk(mu_);
    return consuming_;
  }
  // The consume task stops (queue dropped); the next put() starts a new one.
  void stop() { std::lock_guard lk(mu_); running_ = false; }

  // True while the listener runs a batch: a rebalance waits for it before it unlocks the queue.
  std::atomic<bool> inListener{false};

 private:
  mutable std::mutex mu_;
  std::map<int64_t, MessageExt> waiting_;
  Consuming consuming_;  // the batch taken and not yet committed or rolled back
  bool running_ = false;
};

}  // namespace rmq::client
