#pragma once
// AsyncSemaphore: a counting semaphore for coroutines (Java's fair java.util.concurrent.Semaphore
// as NettyRemotingAbstract uses it for semaphoreAsync / semaphoreOneway). No thread ever blocks:
// a coroutine that finds no permit parks on a steady_timer of its own executor (the bounded wait)
// and is woken by the release that hands it a permit, first come first served.
// Hot path without a lock: a free permit is taken with one CAS and given back with one atomic
// add, as long as nobody waits; the mutex is taken only while waiters exist.
// A Permit gives its permit back exactly once, when it is destroyed (Java's
// SemaphoreReleaseOnlyOnce): hold it in the coroutine frame of the request or in whatever lives
// until the request completed (answer, timeout, failed write, closed connection, destroyed frame).
// The awaiting executor must be serialized (a single-threaded io_context or a strand).
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

namespace rmq::net {

class AsyncSemaphore : public std::enable_shared_from_this<AsyncSemaphore> {
 public:
  // Create with make(): permits and waiters keep the semaphore alive through shared_from_this.
  static std::shared_ptr<AsyncSemaphore> make(int64_t permits);
  explicit AsyncSemaphore(int64_t permits);
  AsyncSemaphore(const AsyncSemaphore&) = delete;
  AsyncSemaphore& operator=(const AsyncSemaphore&) = delete;

  // One permit; gives it back when destroyed (or release()d), exactly once. Move-only.
  class Permit {
   public:
    Permit() = default;
    explicit Permit(std::shared_ptr<AsyncSemaphore> owner) : owner_(std::move(owner)) {}
    Permit(Permit&& other) noexcept = default;
    Permit& operator=(Permit&& other) noexcept;
    ~Permit() { release(); }
    void release();
    explicit operator bool() const { return owner_ != nullptr; }

   private:
    std::shared_ptr<AsyncSemaphore> owner_;
  };

  // A permit at once, or none (Java tryAcquire()). Never overtakes a waiter.
  std::optional<Permit> tryAcquire();
  // A permit within `timeout` (Java tryAcquire(timeout)); none after the timeout or once closed.
  // timeout <= 0 = tryAcquire().
  asio::awaitable<std::optional<Permit>> acquire(std::chrono::milliseconds timeout);

  // Wakes every waiter without a permit and makes later acquires fail (client shut down).
  // Permits still held come back as usual.
  void close();
  bool closed() const { return closed_.load(std::memory_order_acquire); }

  int64_t permits() const { return permits_; }  // the configured count
  int64_t available() const { return available_.load(std::memory_order_acquire); }
  int64_t waiting() const { return waiting_.load(std::memory_order_acquire); }

 private:
  struct Waiter {
    explicit Waiter(asio::steady_timer t) : timer(std::move(t)) {}
    asio::steady_timer timer;  // on the waiter's executor; cancelled (posted) to wake it
    bool granted = false;      // under mu_
    bool parked = true;        // under mu_: still in waiters_
  };
  bool takeFree();                 // CAS available_ down by one when it is > 0
  void giveBack();                 // a released permit: free, or straight to the first waiter
  void grantWaitingLocked();       // mu_ held: free permits go to waiters, oldest first
  // mu_ held: the waiter leaves (timeout, close, its frame destroyed); true = it holds a permit.
  bool leaveLocked(Waiter& w);
  asio::awaitable<std::optional<Permit>> waitForPermit(std::chrono::milliseconds timeout);

  const int64_t permits_;
  std::atomic<int64_t> available_;
  std::atomic<int64_t> waiting_{0};
  std::atomic<bool> closed_{false};
  std::mutex mu_;
  std::deque<std::shared_ptr<Waiter>> waiters_;  // oldest first
};

using AsyncPermit = AsyncSemaphore::Permit;

}  // namespace rmq::net
