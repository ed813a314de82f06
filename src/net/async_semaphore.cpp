#include "net/async_semaphore.h"

#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <algorithm>

namespace rmq::net {

// Lock-free paths and the waiters meet like this (all seq_cst): a waiter registers (waiting_ + 1)
// then looks for a free permit; a release frees its permit (available_ + 1) then looks for
// waiters. At least one of the two sees the other, so a freed permit never sits idle while
// somebody waits.

std::shared_ptr<AsyncSemaphore> AsyncSemaphore::make(int64_t permits) {
  return std::make_shared<AsyncSemaphore>(permits);
}

AsyncSemaphore::AsyncSemaphore(int64_t permits) : permits_(std::max<int64_t>(permits, 0)), available_(permits_) {}

AsyncSemaphore::Permit& AsyncSemaphore::Permit::operator=(Permit&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::move(other.owner_);
  }
  return *this;
}

void AsyncSemaphore::Permit::release() {
  if (!owner_) return;
  auto owner = std::move(owner_);
  owner_.reset();
  owner->giveBack();
}

bool AsyncSemaphore::takeFree() {
  int64_t n = available_.load(std::memory_order_seq_cst);
  while (n > 0)
    if (available_.compare_exchange_weak(n, n - 1, std::memory_order_seq_cst)) return true;
  return false;
}

void AsyncSemaphore::giveBack() {
  available_.fetch_add(1, std::memory_order_seq_cst);
  if (waiting_.load(std::memory_order_seq_cst) == 0) return;
  std::lock_guard lk(mu_);
  grantWaitingLocked();
}

void AsyncSemaphore::grantWaitingLocked() {
  while (!waiters_.empty() && takeFree()) {
    auto w = std::move(waiters_.front());
    waiters_.pop_front();
    w->parked = false;
    w->granted = true;
    waiting_.fetch_sub(1, std::memory_order_seq_cst);
    // Posted under mu_: a waiter whose frame is being destroyed leaves under mu_ first, so its
    // executor is still alive here.
    asio::post(w->timer.get_executor(), [w] { w->timer.cancel(); });
  }
}

bool AsyncSemaphore::leaveLocked(Waiter& w) {
  if (w.granted) {  // grantWaitingLocked already took it out of waiters_
    w.granted = false;  // taken over by the caller
    return true;
  }
  if (w.parked) {
    w.parked = false;
    auto it = std::find_if(waiters_.begin(), waiters_.end(), [&](const auto& p) { return p.get() == &w; });
    if (it != waiters_.end()) waiters_.erase(it);
    waiting_.fetch_sub(1, std::memory_order_seq_cst);
  }
  return false;
}

std::optional<AsyncSemaphore::Permit> AsyncSemaphore::tryAcquire() {
  if (closed_.load(std::memory_order_acquire)) return std::nullopt;
  if (waiting_.load(std::memory_order_seq_cst) != 0 || !takeFree()) return std::nullopt;
  return Permit(shared_from_this());
}

asio::awaitable<std::optional<AsyncSemaphore::Permit>> AsyncSemaphore::acquire(std::chrono::milliseconds timeout) {
  if (auto p = tryAcquire()) co_return p;
  if (timeout.count() <= 0 || closed_.load(std::memory_order_acquire)) co_return std::nullopt;
  co_return co_await waitForPermit(timeout);
}

void AsyncSemaphore::close() {
  closed_.store(true, std::memory_order_release);
  std::lock_guard lk(mu_);
  for (auto& w : waiters_) {
    w->parked = false;
    waiting_.fetch_sub(1, std::memory_order_seq_cst);
    asio::post(w->timer.get_executor(), [w] { w->timer.cancel(); });
  }
  waiters_.clear();
}

asio::awaitable<std::optional<AsyncSemaphore::Permit>> AsyncSemaphore::waitForPermit(std::chrono::milliseconds timeout) {
  auto self = shared_from_this();
  auto ex = co_await asio::this_coro::executor;
  timeout = std::min(timeout, std::chrono::milliseconds(std::chrono::hours(24 * 365)));  // no overflow
  auto waiter = std::make_shared<Waiter>(asio::steady_timer(ex, timeout));
  {
    std::lock_guard lk(mu_);
    if (closed_.load(std::memory_order_acquire)) co_return std::nullopt;
    waiting_.fetch_add(1, std::memory_order_seq_cst);
    waiters_.push_back(waiter);
    grantWaitingLocked();  // a permit freed since tryAcquire, or one a concurrent release left us
    if (waiter->granted) {  // granted at once: grantWaitingLocked took it out of the queue
      waiter->granted = false;
      co_return Permit(self);
    }
  }
  // If this frame is destroyed while parked (its io_context stopped), leave the queue and give
  // back a permit granted meanwhile.
  struct LeaveOnDestroy {
    AsyncSemaphore* sem;
    Waiter* w;
    ~LeaveOnDestroy() {
      if (!w) return;
      std::lock_guard lk(sem->mu_);
      if (sem->leaveLocked(*w)) {
        sem->available_.fetch_add(1, std::memory_order_seq_cst);
        sem->grantWaitingLocked();
      }
    }
  } guard{this, waiter.get()};
  co_await waiter->timer.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
  bool granted;
  {
    std::lock_guard lk(mu_);
    granted = leaveLocked(*waiter);
  }
  guard.w = nullptr;
  if (granted) co_return Permit(self);
  co_return std::nullopt;
}

}  // namespace rmq::net
