#include "roles/broker/metadata/persist_soon.h"

#include <chrono>

#include "common/log.h"

namespace rmq::broker {

void PersistSoon::setExecutor(Executor exec, std::chrono::milliseconds minGap) {
  std::lock_guard lk(mu_);
  exec_ = std::move(exec);
  minGap_ = minGap;
}

void PersistSoon::run() {
  // Cleared before the table is read: a change from here on queues the next write.
  queued_.store(false, std::memory_order_seq_cst);
  writes_.fetch_add(1, std::memory_order_relaxed);
  auto start = std::chrono::steady_clock::now();
  if (auto r = persist_(); !r) log::error("persist {}: {}", file_, r.error().message);
  // The durability bound of an answered change is the coalescing delay plus this (broker README).
  auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  lastWriteMillis_.store(took.count(), std::memory_order_relaxed);
  lastWriteEndNanos_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  if (took.count() >= 200) log::info("persist {} took {} ms", file_, took.count());
}

void PersistSoon::operator()() {
  Executor exec;
  std::chrono::milliseconds minGap;
  {
    std::lock_guard lk(mu_);
    exec = exec_;
    minGap = minGap_;
  }
  if (!exec) {
    run();
    return;
  }
  if (queued_.exchange(true, std::memory_order_seq_cst)) return;  // the queued job will see this change
  using namespace std::chrono;
  const auto gap = std::max(minGap, milliseconds(lastWriteMillis_.load(std::memory_order_relaxed)));
  const int64_t lastEnd = lastWriteEndNanos_.load(std::memory_order_relaxed);
  auto delay = milliseconds(0);
  if (lastEnd != 0) {
    const auto since = steady_clock::now() - steady_clock::time_point(steady_clock::duration(lastEnd));
    if (since < gap) delay = duration_cast<milliseconds>(gap - since) + milliseconds(1);
  }
  exec(delay, [this] { run(); });
}

}  // namespace rmq::broker
