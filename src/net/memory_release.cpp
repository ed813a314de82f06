#include "net/memory_release.h"

// Weak: resolved when the executable links mimalloc (rmqnode), null otherwise, so every other
// binary links this library without it.
extern "C" void mi_collect(bool force) __attribute__((weak));

namespace rmq::net {

void releaseFreeMemory() {
  if (mi_collect) mi_collect(false);
}

bool allocatorIsMimalloc() { return mi_collect != nullptr; }

MemoryReleaser::MemoryReleaser(IoPool& pool, std::chrono::milliseconds every) : every_(every) {
  if (every.count() <= 0) return;
  for (size_t i = 0; i < pool.size(); ++i) timers_.push_back(std::make_unique<asio::steady_timer>(pool.at(i)));
  for (size_t i = 0; i < timers_.size(); ++i) arm(i);
}

// The pool is stopped by then (its threads joined), so no handler runs during the destruction.
MemoryReleaser::~MemoryReleaser() = default;

void MemoryReleaser::arm(size_t i) {
  auto& timer = *timers_[i];
  timer.expires_after(every_);
  timer.async_wait([this, i](const asio::error_code& ec) {
    if (ec) return;
    releaseFreeMemory();  // on the timer's thread: that thread's heap
    arm(i);
  });
}

}  // namespace rmq::net
