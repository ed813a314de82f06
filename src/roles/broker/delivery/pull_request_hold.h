#pragma once
// PullRequestHold: long polling as awaitable wake-ups (PROTOCOL.md §8.4). A PULL_MESSAGE that
// finds nothing new parks its coroutine here on a steady_timer bound to its own executor (the
// connection's io_context). The store's arrival listener calls notifyMessageArriving() from the
// dispatch thread; matching waiters are removed under the lock and their timer is cancelled on
// their executor, so the pull re-runs within microseconds. No polling loop; a parked pull costs
// one coroutine frame, one timer and one small Waiter.
// Threads: wait() on any network executor; notify*/wakeAll() from any thread.
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "filter/filter.h"

namespace rmq::broker {

class ParkCancel;

class PullRequestHold {
 public:
  struct Waiter;
  using FilterPtr = std::shared_ptr<const filter::Filter>;  // null = match everything
  static constexpr int32_t kAnyQueue = -1;                   // waitPop: every queue of the topic

  // Parks until a message at offset >= `offset` matching `filter` arrives in topic/queueId, the
  // timeout passes, or wakeAll(). `currentMaxOffset` is re-checked after parking to close the
  // race with an arrival between the caller's read and the park. Returns true if woken early.
  asio::awaitable<bool> wait(std::string topic, int32_t queueId, int64_t offset, FilterPtr filter,
                             std::chrono::milliseconds timeout,
                             const std::function<int64_t()>& currentMaxOffset);

  // A parked POP (src/roles/broker/pop): parks for `group` on topic/queueId (-1: every queue of the
  // topic) until an arrival its filter accepts, notifyPopDue() for its group, the timeout, wakeAll()
  // or asio cancellation. One arrival wakes at most one parked pop per group (the one that takes
  // it), not all of them. `ready` is re-checked after parking (closes the race with an arrival
  // between the caller's look and the park). Returns true if woken early.
  // `cancel` (may be null): ParkCancel::cancel() from any thread ends the park (returns false).
  asio::awaitable<bool> waitPop(std::string topic, int32_t queueId, std::string group, FilterPtr filter,
                                std::chrono::milliseconds timeout, const std::function<bool()>& ready,
                                ParkCancel* cancel = nullptr);
  // A popped message of group/topic/queueId became visible again: wakes one parked pop of the group.
  void notifyPopDue(std::string_view group, std::string_view topic, int32_t queueId);
  size_t parkedPopCount() const { return parkedPops_.load(std::memory_order_relaxed); }

  // From the store's dispatch: a message was appended to topic/queueId, which now ends at
  // `maxOffset` (next free logical offset). tagsCode / properties feed the waiters' filters.
  void notifyMessageArriving(std::string_view topic, int32_t queueId, int64_t maxOffset,
                             std::optional<int64_t> tagsCode, std::string_view properties);
  // Wakes every parked pull (shutdown: they are answered at once).
  void wakeAll();
  size_t parkedCount() const { return parked_.load(std::memory_order_relaxed); }

 private:
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using QueueWaiters = std::map<int32_t, std::vector<std::shared_ptr<Waiter>>>;

  void add(const std::string& topic, int32_t queueId, const std::shared_ptr<Waiter>& w);
  friend class ParkCancel;
  void remove(const std::string& topic, int32_t queueId, const std::shared_ptr<Waiter>& w);
  static void wake(const std::shared_ptr<Waiter>& w);
  // Parks `w` in topic/queueId until woken or its timer ends; removes it again.
  asio::awaitable<void> park(const std::string& topic, int32_t queueId, std::shared_ptr<Waiter> w,
                             const std::function<bool()>& arrivedMeanwhile);
  // Moves the waiters of topic/queueId that `pred` accepts to `out` (mu_ held); drops emptied entries.
  template <class Pred>
  void takeLocked(std::string_view topic, int32_t queueId, Pred&& pred, std::vector<std::shared_ptr<Waiter>>& out);

  mutable std::mutex mu_;
  std::unordered_map<std::string, QueueWaiters, StringHash, std::equal_to<>> table_;
  std::atomic<size_t> parked_{0};
  std::atomic<size_t> parkedPops_{0};
};

// Ends a parked waitPop from any thread (a 5.x ReceiveMessage whose call was cancelled: client gone
// or deadline). Sticky: once cancelled, a later park returns at once, so a cancel arriving between
// two parks of one pop is not lost. One small object per call instead of a co_spawn'd coroutine
// and an asio cancellation signal around the whole pop (~1.3 KB per parked receive).
class ParkCancel {
 public:
  void cancel();
  bool cancelled() const;

 private:
  friend class PullRequestHold;
  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::shared_ptr<PullRequestHold::Waiter> parked_;  // the park in progress, if any
};

}  // namespace rmq::broker
