#include "roles/broker/delivery/pull_request_hold.h"

#include <asio/execution/context.hpp>
#include <asio/execution_context.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/query.hpp>
#include <asio/post.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <algorithm>

#include "filter/filter.h"

namespace rmq::broker {

// A coroutine's wait (wait(), waitPop()): it sleeps on `timer` until the timeout or a wake-up.
struct PullRequestHold::TimedWaiter final : Waiter {
  // Made by park() on the parking coroutine's executor before anyone else can see the waiter;
  // touched only on that executor (onWoken() posts there).
  std::optional<asio::steady_timer> timer;
  void onWoken(const std::shared_ptr<Waiter>& self) override {
    asio::post(timer->get_executor(), [w = std::static_pointer_cast<TimedWaiter>(self)] { w->timer->cancel(); });
  }
};

// The deadlines of one io thread's parked records: a min-heap (each record knows its index, so a
// woken one leaves in O(log n)) under one timer armed to the earliest. An asio service: one per
// io_context; touched only on that io_context's thread.
class ParkDeadlines final : public asio::execution_context::service {
 public:
  static asio::execution_context::id id;
  explicit ParkDeadlines(asio::execution_context& ctx) : service(ctx) {}
  static ParkDeadlines& of(const asio::any_io_executor& ex) {
    return asio::use_service<ParkDeadlines>(asio::query(ex, asio::execution::context));
  }

  void add(const std::shared_ptr<PullRequestHold::Parked>& w) {
    w->deadlineIndex_ = heap_.size();
    heap_.push_back(w);
    up(heap_.size() - 1);
    if (!timer_) timer_.emplace(w->executor_);
    arm();
  }
  void remove(PullRequestHold::Parked& w) {
    size_t i = w.deadlineIndex_;
    if (i >= heap_.size() || heap_[i].get() != &w) return;
    w.deadlineIndex_ = SIZE_MAX;
    if (i + 1 != heap_.size()) {
      place(i, std::move(heap_.back()));
      heap_.pop_back();
      down(i);
      up(i);
    } else {
      heap_.pop_back();
    }
  }

 private:
  using Clock = std::chrono::steady_clock;
  void shutdown() override {  // the io_context ends: its records are dropped (their connections are gone)
    for (auto& w : heap_) w->deadlineIndex_ = SIZE_MAX;
    std::vector<std::shared_ptr<PullRequestHold::Parked>>().swap(heap_);
    timer_.reset();
  }
  void place(size_t i, std::shared_ptr<PullRequestHold::Parked> w) {
    w->deadlineIndex_ = i;
    heap_[i] = std::move(w);
  }
  void up(size_t i) {
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (heap_[parent]->deadline_ <= heap_[i]->deadline_) return;
      auto w = std::move(heap_[i]);
      place(i, std::move(heap_[parent]));
      place(parent, std::move(w));
      i = parent;
    }
  }
  void down(size_t i) {
    for (;;) {
      size_t least = i;
      for (size_t c = 2 * i + 1; c <= 2 * i + 2 && c < heap_.size(); ++c)
        if (heap_[c]->deadline_ < heap_[least]->deadline_) least = c;
      if (least == i) return;
      auto w = std::move(heap_[i]);
      place(i, std::move(heap_[least]));
      place(least, std::move(w));
      i = least;
    }
  }
  // Armed to the earliest deadline; a new earlier one re-arms (the superseded wait sees another generation).
  void arm() {
    if (heap_.empty() || !timer_) return;
    auto first = heap_.front()->deadline_;
    if (armed_ && armedAt_ <= first) return;
    armed_ = true;
    armedAt_ = first;
    timer_->expires_at(first);
    timer_->async_wait([this, generation = ++generation_](const asio::error_code& ec) {
      if (generation != generation_) return;  // re-armed meanwhile
      armed_ = false;
      if (ec) return;  // shut down
      expire();
    });
  }
  void expire() {
    const auto now = Clock::now();
    std::vector<std::shared_ptr<PullRequestHold::Parked>> due;
    while (!heap_.empty() && heap_.front()->deadline_ <= now) {
      due.push_back(heap_.front());
      remove(*heap_.front());
    }
    for (auto& w : due)
      if (!w->woken.exchange(true)) w->hold_->finish(w);  // else a wake-up posted its finish already
    arm();
  }

  std::vector<std::shared_ptr<PullRequestHold::Parked>> heap_;
  std::optional<asio::steady_timer> timer_;  // made with the first record's executor
  bool armed_ = false;
  Clock::time_point armedAt_{};
  uint64_t generation_ = 0;
};

asio::execution_context::id ParkDeadlines::id;

void PullRequestHold::Parked::onWoken(const std::shared_ptr<Waiter>& self) {
  asio::post(executor_, [w = std::static_pointer_cast<Parked>(self)] { w->hold_->finish(w); });
}

void PullRequestHold::wake(const std::shared_ptr<Waiter>& w) {
  if (w->woken.exchange(true)) return;
  w->onWoken(w);
}

void PullRequestHold::park(std::shared_ptr<Parked> w, const asio::any_io_executor& executor, std::string topic,
                           int32_t queueId, std::chrono::milliseconds timeout, const std::function<bool()>& arrived) {
  w->hold_ = this;
  w->executor_ = executor;
  w->deadline_ = std::chrono::steady_clock::now() + timeout;
  w->topic_ = std::move(topic);
  w->queueId_ = queueId;
  if (w->cancel && !w->cancel->link(w)) {  // the connection closed already
    w->woken.store(true);
    w->resume();
    return;
  }
  add(w->topic_, queueId, w);
  ParkDeadlines::of(executor).add(w);
  if (arrived && arrived()) wake(w);  // arrived before we parked
}

void PullRequestHold::finish(const std::shared_ptr<Parked>& w) {
  ParkDeadlines::of(w->executor_).remove(*w);
  remove(w->topic_, w->queueId_, w);
  if (w->cancel) w->cancel->unlink(w.get());
  w->resume();
}

void PullRequestHold::add(const std::string& topic, int32_t queueId, const std::shared_ptr<Waiter>& w) {
  std::lock_guard lock(mu_);
  table_[topic][queueId].push_back(w);
  parked_.fetch_add(1, std::memory_order_relaxed);
  if (w->pop) parkedPops_.fetch_add(1, std::memory_order_relaxed);
}

template <class Pred>
void PullRequestHold::takeLocked(std::string_view topic, int32_t queueId, Pred&& pred,
                                 std::vector<std::shared_ptr<Waiter>>& out) {
  auto t = table_.find(topic);
  if (t == table_.end()) return;
  auto q = t->second.find(queueId);
  if (q == t->second.end()) return;
  auto& list = q->second;
  for (size_t i = 0; i < list.size();) {
    if (!pred(list[i])) { ++i; continue; }
    out.push_back(std::move(list[i]));
    list[i] = std::move(list.back());
    list.pop_back();
    parked_.fetch_sub(1, std::memory_order_relaxed);
    if (out.back()->pop) parkedPops_.fetch_sub(1, std::memory_order_relaxed);
  }
  if (list.empty()) t->second.erase(q);
  if (t->second.empty()) table_.erase(t);
}

void PullRequestHold::remove(const std::string& topic, int32_t queueId, const std::shared_ptr<Waiter>& w) {
  std::vector<std::shared_ptr<Waiter>> taken;  // empty when a notification took it first
  std::lock_guard lock(mu_);
  takeLocked(topic, queueId, [&](const std::shared_ptr<Waiter>& x) { return x == w; }, taken);
}

asio::awaitable<bool> PullRequestHold::park(std::string topic, int32_t queueId, std::shared_ptr<TimedWaiter> w,
                                            std::chrono::milliseconds timeout, const std::function<bool()>& ready,
                                            ParkCancel* cancel) {
  auto ex = co_await asio::this_coro::executor;
  w->timer.emplace(ex, timeout);
  if (cancel != nullptr && !cancel->link(w)) co_return false;
  add(topic, queueId, w);
  if (ready && ready()) wake(w);  // arrived before we parked
  if (!w->woken.load()) {
    co_await w->timer->async_wait(asio::experimental::as_tuple(asio::use_awaitable));
  }
  remove(topic, queueId, w);
  if (cancel != nullptr && cancel->unlink(w.get())) co_return false;
  co_return w->woken.load();
}

asio::awaitable<bool> PullRequestHold::wait(std::string topic, int32_t queueId, int64_t offset, FilterPtr filter,
                                            std::chrono::milliseconds timeout, const std::function<bool()>& arrived,
                                            ParkCancel* cancel) {
  auto w = std::make_shared<TimedWaiter>();
  w->offset = offset;
  w->filter = std::move(filter);
  return park(std::move(topic), queueId, std::move(w), timeout, arrived, cancel);
}

asio::awaitable<bool> PullRequestHold::waitPop(std::string topic, int32_t queueId, std::string group,
                                               FilterPtr filter, std::chrono::milliseconds timeout,
                                               const std::function<bool()>& ready, ParkCancel* cancel) {
  auto w = std::make_shared<TimedWaiter>();
  w->offset = -1;
  w->pop = true;
  w->group = std::move(group);
  w->filter = std::move(filter);
  return park(std::move(topic), queueId, std::move(w), timeout, ready, cancel);
}

bool ParkCancel::link(const std::shared_ptr<PullRequestHold::Waiter>& w) {
  std::lock_guard lock(mu_);
  if (cancelled_) return false;
  parked_.push_back(w);
  return true;
}

bool ParkCancel::unlink(const PullRequestHold::Waiter* w) {
  std::lock_guard lock(mu_);
  auto it = std::find_if(parked_.begin(), parked_.end(), [w](const auto& p) { return p.get() == w; });
  if (it != parked_.end()) {  // cancel() took them all otherwise
    *it = std::move(parked_.back());
    parked_.pop_back();
  }
  return cancelled_;
}

void ParkCancel::cancel() {
  std::vector<std::shared_ptr<PullRequestHold::Waiter>> parked;
  {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    parked.swap(parked_);
  }
  for (auto& w : parked) PullRequestHold::wake(w);
}

std::shared_ptr<ParkCancel> connectionParks(net::Connection& conn) {
  if (!conn.userData) conn.userData = std::make_shared<ParkCancel>();
  return std::static_pointer_cast<ParkCancel>(conn.userData);
}

void cancelConnectionParks(net::Connection& conn) {
  if (conn.userData) std::static_pointer_cast<ParkCancel>(conn.userData)->cancel();
}

bool ParkCancel::cancelled() const {
  std::lock_guard lock(mu_);
  return cancelled_;
}

void PullRequestHold::notifyMessageArriving(std::string_view topic, int32_t queueId, int64_t maxOffset,
                                            std::optional<int64_t> tagsCode, std::string_view properties) {
  if (parked_.load(std::memory_order_relaxed) == 0) return;
  std::vector<std::shared_ptr<Waiter>> ready;
  {
    std::lock_guard lock(mu_);
    std::vector<std::string_view> popGroups;  // one parked pop per group takes this message
    auto matches = [&](const std::shared_ptr<Waiter>& w) {
      if (w->pop ? std::find(popGroups.begin(), popGroups.end(), w->group) != popGroups.end() : maxOffset <= w->offset)
        return false;
      if (w->filter) {
        if (tagsCode && !w->filter->matchesTagsCode(*tagsCode)) return false;
        if (w->filter->type() == filter::ExpressionType::Sql92 &&
            !w->filter->matchesProperties(filter::RawProperties(properties)))
          return false;
      }
      if (w->pop) popGroups.push_back(w->group);
      return true;
    };
    takeLocked(topic, queueId, matches, ready);
    if (parkedPops_.load(std::memory_order_relaxed) > 0) takeLocked(topic, kAnyQueue, matches, ready);
  }
  for (auto& w : ready) wake(w);
}

void PullRequestHold::notifyPopDue(std::string_view group, std::string_view topic, int32_t queueId) {
  if (parkedPops_.load(std::memory_order_relaxed) == 0) return;
  std::vector<std::shared_ptr<Waiter>> ready;
  {
    std::lock_guard lock(mu_);
    auto mine = [&](const std::shared_ptr<Waiter>& w) { return ready.empty() && w->pop && w->group == group; };
    takeLocked(topic, queueId, mine, ready);
    takeLocked(topic, kAnyQueue, mine, ready);
  }
  for (auto& w : ready) wake(w);
}

void PullRequestHold::wakeAll() {
  std::vector<std::shared_ptr<Waiter>> all;
  {
    std::lock_guard lock(mu_);
    for (auto& [topic, queues] : table_)
      for (auto& [qid, list] : queues)
        for (auto& w : list) all.push_back(w);
    table_.clear();
    parked_.store(0, std::memory_order_relaxed);
    parkedPops_.store(0, std::memory_order_relaxed);
  }
  for (auto& w : all) wake(w);
}

}  // namespace rmq::broker
