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
#include "net/connection.h"

namespace rmq::broker {

class ParkCancel;

class PullRequestHold {
 public:
  struct Waiter;
  using FilterPtr = std::shared_ptr<const filter::Filter>;  // null = match everything
  static constexpr int32_t kAnyQueue = -1;                   // waitPop: every queue of the topic

  // Parks until a message at offset >= `offset` matching `filter` arrives in topic/queueId, the
  // timeout passes, wakeAll() or `cancel` (may be null: a remoting connection's parks, ended when it
  // closes). `arrived` is re-checked after parking to close the race with an arrival between the
  // caller's read and the park. Returns true if woken early (false on timeout or cancel).
  // Not a coroutine: the park's one frame holds what the wait needs; `arrived` and `cancel` must
  // outlive it (the caller's named locals).
  asio::awaitable<bool> wait(std::string topic, int32_t queueId, int64_t offset, FilterPtr filter,
                             std::chrono::milliseconds timeout, const std::function<bool()>& arrived,
                             ParkCancel* cancel = nullptr);

  // A parked POP (src/roles/broker/pop): parks for `group` on topic/queueId (-1: every queue of the
  // topic) until an arrival its filter accepts, notifyPopDue() for its group, the timeout, wakeAll()
  // or asio cancellation. One arrival wakes at most one parked pop per group (the one that takes
  // it), not all of them. `ready` is re-checked after parking (closes the race with an arrival
  // between the caller's look and the park). Returns true if woken early.
  // `cancel` (may be null): ParkCancel::cancel() from any thread ends the park (returns false).
  // Not a coroutine, as wait().
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
  // The one coroutine of a wait: parks `w` (its timer made here, on the caller's executor) in
  // topic/queueId until woken, timed out or cancelled; removes it again. True if woken, not cancelled.
  asio::awaitable<bool> park(std::string topic, int32_t queueId, std::shared_ptr<Waiter> w,
                             std::chrono::milliseconds timeout, const std::function<bool()>& ready, ParkCancel* cancel);
  // Moves the waiters of topic/queueId that `pred` accepts to `out` (mu_ held); drops emptied entries.
  template <class Pred>
  void takeLocked(std::string_view topic, int32_t queueId, Pred&& pred, std::vector<std::shared_ptr<Waiter>>& out);

  mutable std::mutex mu_;
  std::unordered_map<std::string, QueueWaiters, StringHash, std::equal_to<>> table_;
  std::atomic<size_t> parked_{0};
  std::atomic<size_t> parkedPops_{0};
};

// Ends parked waits from any thread: a 5.x ReceiveMessage's pop whose call was cancelled (client
// gone or deadline), or every parked pull of a remoting connection that closed (nobody to answer).
// Sticky: once cancelled, a later park returns at once, so a cancel arriving between two parks (or
// between a request's read and its park) is not lost. One small object per call or connection
// instead of an asio cancellation signal around each wait; a park pays a pointer and an
// uncontended lock to link itself.
class ParkCancel {
 public:
  void cancel();
  bool cancelled() const;

 private:
  friend class PullRequestHold;
  bool link(const std::shared_ptr<PullRequestHold::Waiter>& w);  // false (not linked) once cancelled
  bool unlink(const PullRequestHold::Waiter* w);                 // true if cancelled meanwhile

  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::vector<std::shared_ptr<PullRequestHold::Waiter>> parked_;  // the parks in progress (a connection: any number)
};

// A remoting connection's parked pulls end when it closes (they answer nothing: the socket is gone),
// not when their hold would have (brokerSuspendMaxTimeMillis): until then they keep the connection's
// memory. Its ParkCancel is kept in the connection's userData, made by its first park. Both on the
// connection's thread (request handlers and the close hook run there).
std::shared_ptr<ParkCancel> connectionParks(net::Connection& conn);
void cancelConnectionParks(net::Connection& conn);

}  // namespace rmq::broker
