#include "roles/broker/delivery/pull_request_hold.h"

#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <algorithm>

#include "filter/filter.h"

namespace rmq::broker {

struct PullRequestHold::Waiter {
  // Made by park() on the parking coroutine's executor before anyone else can see the waiter;
  // touched only on that executor (wake() posts there).
  std::optional<asio::steady_timer> timer;
  int64_t offset = 0;
  FilterPtr filter;
  bool pop = false;   // a parked POP: any arrival counts, one woken per group
  std::string group;  // pop only
  std::atomic<bool> woken{false};
};

void PullRequestHold::wake(const std::shared_ptr<Waiter>& w) {
  if (w->woken.exchange(true)) return;
  asio::post(w->timer->get_executor(), [w] { w->timer->cancel(); });
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

asio::awaitable<bool> PullRequestHold::park(std::string topic, int32_t queueId, std::shared_ptr<Waiter> w,
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
  auto w = std::make_shared<Waiter>();
  w->offset = offset;
  w->filter = std::move(filter);
  return park(std::move(topic), queueId, std::move(w), timeout, arrived, cancel);
}

asio::awaitable<bool> PullRequestHold::waitPop(std::string topic, int32_t queueId, std::string group,
                                               FilterPtr filter, std::chrono::milliseconds timeout,
                                               const std::function<bool()>& ready, ParkCancel* cancel) {
  auto w = std::make_shared<Waiter>();
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
