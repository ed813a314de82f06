#include "roles/broker/metadata/persist_soon.h"

#include "common/log.h"

namespace rmq::broker {

void PersistSoon::setExecutor(Executor exec) {
  std::lock_guard lk(mu_);
  exec_ = std::move(exec);
}

void PersistSoon::operator()() {
  Executor exec;
  {
    std::lock_guard lk(mu_);
    exec = exec_;
  }
  auto job = [this] {
    if (auto r = persist_(); !r) log::error("persist {}: {}", file_, r.error().message);
  };
  if (exec) {
    exec(job);
  } else {
    job();
  }
}

}  // namespace rmq::broker
