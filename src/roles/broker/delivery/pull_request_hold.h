#pragma once
// PullRequestHold: long polling (PROTOCOL.md §8.4). A remoting PULL_MESSAGE that finds nothing new
// parks here as a record (park(): a Parked with what its re-run needs, no coroutine) until an
// arrival, its timeout, wakeAll() or its connection's close; then the record is resumed on its
// connection's thread, re-reads and answers (as Java's PullRequestHoldService re-executes the
// request). Timeouts: one timer per io thread over that thread's parked records (a deadline heap),
// not one per record. Waits that need a coroutine (gRPC and remoting POP: waitPop; wait()) park a
// coroutine on a steady_timer of their executor instead. The store's arrival listener calls
// notifyMessageArriving() from the dispatch thread; matching waiters are removed under the lock and
// woken on their executor, so the pull re-runs within microseconds. No polling loop.
// Threads: park()/wait() on a network executor; notify*/wakeAll() from any thread.
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <climits>
#include <cstdint>
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
  using FilterPtr = std::shared_ptr<const filter::Filter>;  // null = match everything
  static constexpr int32_t kAnyQueue = -1;                   // waitPop: every queue of the topic

  // One parked wait in the table (topic/queue). Woken once (wake()), from any thread.
  struct Waiter {
    virtual ~Waiter() = default;
    int64_t offset = 0;
    FilterPtr filter;
    bool pop = false;   // a parked POP: any arrival counts, one woken per group
    std::string group;  // pop only
    std::atomic<bool> woken{false};  // set once, by whoever ends the wait (arrival, cancel, timeout)
    // After `woken` was set by an arrival, wakeAll or a cancel: gets the waiting side going on its executor.
    virtual void onWoken(const std::shared_ptr<Waiter>& self) = 0;
  };

  // A wait kept as data (a remoting PULL): resume() runs once, on `executor`, after an arrival,
  // the timeout, wakeAll() or `cancel`; the subclass holds what re-running its request needs.
  class Parked : public Waiter {
   public:
    virtual void resume() = 0;  // cancel->cancelled(): the connection closed, nobody to answer

   private:
    friend class PullRequestHold;
    friend class ParkDeadlines;
    void onWoken(const std::shared_ptr<Waiter>& self) override;
    PullRequestHold* hold_ = nullptr;
    asio::any_io_executor executor_;
    std::chrono::steady_clock::time_point deadline_{};
    size_t deadlineIndex_ = SIZE_MAX;  // its place in the thread's deadline heap (SIZE_MAX: not there)
    std::string topic_;
    int32_t queueId_ = 0;

   public:
    std::shared_ptr<ParkCancel> cancel;  // may be null
  };

  // Parks `w` (waiting for offset >= w->offset on topic/queueId matching w->filter) on the calling
  // thread, which must be `executor`'s (a connection's io thread), for at most `timeout`. `arrived`
  // is checked once it is in the table (an arrival between the caller's read and the park).
  void park(std::shared_ptr<Parked> w, const asio::any_io_executor& executor, std::string topic, int32_t queueId,
            std::chrono::milliseconds timeout, const std::function<bool()>& arrived);

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
  struct TimedWaiter;
  friend class ParkDeadlines;
  // A Parked's end, on its thread: out of the table, the deadline heap and its cancel; resume().
  void finish(const std::shared_ptr<Parked>& w);

  void add(const std::string& topic, int32_t queueId, const std::shared_ptr<Waiter>& w);
  friend class ParkCancel;
  void remove(const std::string& topic, int32_t queueId, const std::shared_ptr<Waiter>& w);
  static void wake(const std::shared_ptr<Waiter>& w);
  // The one coroutine of a wait: parks `w` (its timer made here, on the caller's executor) in
  // topic/queueId until woken, timed out or cancelled; removes it again. True if woken, not cancelled.
  asio::awaitable<bool> park(std::string topic, int32_t queueId, std::shared_ptr<TimedWaiter> w,
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
