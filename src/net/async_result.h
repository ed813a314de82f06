#pragma once
// AsyncResult<T>: a value set once from any thread and awaited (with a timeout) by coroutines on
// any executor. Used for invoke() waiters and for sharing one connect among concurrent callers.
// Each waiter parks on a steady_timer of its own executor; set() posts a cancel to each timer.
// The awaiting executor must be serialized (a single-threaded io_context or a strand), as every
// IoPool context and a typical caller-owned io_context are.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace rmq::net {

template <class T>
class AsyncResult {
 public:
  // Stores the value (first call wins) and wakes every waiter. Returns false if already set.
  bool set(T value) {
    std::vector<std::shared_ptr<asio::steady_timer>> timers;
    {
      std::lock_guard lk(mu_);
      if (value_) return false;
      value_.emplace(std::move(value));
      timers.swap(timers_);
    }
    for (auto& t : timers) asio::post(t->get_executor(), [t] { t->cancel(); });
    return true;
  }

  // Waits until set() or the timeout; true when the value is available (see value()/take()).
  asio::awaitable<bool> wait(std::chrono::milliseconds timeout) {
    auto ex = co_await asio::this_coro::executor;
    timeout = std::min(timeout, std::chrono::milliseconds(std::chrono::hours(24 * 365)));  // no overflow
    auto timer = std::make_shared<asio::steady_timer>(ex, timeout);
    {
      std::lock_guard lk(mu_);
      if (value_) co_return true;
      timers_.push_back(timer);
    }
    co_await timer->async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    std::lock_guard lk(mu_);
    if (value_) co_return true;
    std::erase(timers_, timer);
    co_return false;
  }

  bool ready() const {
    std::lock_guard lk(mu_);
    return value_.has_value();
  }
  // Only after wait() returned true.
  const T& value() const { return *value_; }
  T take() { return std::move(*value_); }

 private:
  mutable std::mutex mu_;
  std::optional<T> value_;
  std::vector<std::shared_ptr<asio::steady_timer>> timers_;
};

}  // namespace rmq::net
