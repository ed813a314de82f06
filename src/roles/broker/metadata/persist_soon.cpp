#include "roles/broker/metadata/persist_soon.h"

#include "common/log.h"

namespace rmq::broker {

void PersistSoon::setExecutor(Executor exec) {
  std::lock_guard lk(mu_);
  exec_ = std::move(exec);
}

void PersistSoon::run() {
  // Cleared before the table is read: a change from here on queues the next write.
  queued_.store(false, std::memory_order_seq_cst);
  writes_.fetch_add(1, std::memory_order_relaxed);
  if (auto r = persist_(); !r) log::error("persist {}: {}", file_, r.error().message);
}

void PersistSoon::operator()() {
  Executor exec;
  {
    std::lock_guard lk(mu_);
    exec = exec_;
  }
  if (!exec) {
    run();
    return;
  }
  if (queued_.exchange(true, std::memory_order_seq_cst)) return;  // the queued job will see this change
  exec([this] { run(); });
}

}  // namespace rmq::broker
