#pragma once
// Giving freed memory back to the OS. mimalloc (linked into rmqnode) keeps the pages a thread freed
// in that thread's heap until the thread allocates again, so a network thread that goes quiet after
// thousands of connections closed would hold them (tens of MB) indefinitely. MemoryReleaser asks
// the allocator, on each IoPool thread once per tick, to return that thread's free pages
// (mi_collect works on the calling thread's heap): no request pays for it.
// Without mimalloc (tests, tools, the Asan build) releaseFreeMemory() does nothing.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <vector>

#include "net/io_pool.h"

namespace rmq::net {

// Returns the calling thread's free allocator pages to the OS (mimalloc: mi_collect(false)).
void releaseFreeMemory();

// True when the process runs on mimalloc (rmqnode's Release build).
bool allocatorIsMimalloc();

// Every `every`, each thread of `pool` calls releaseFreeMemory(). Destroy it before the pool.
class MemoryReleaser {
 public:
  MemoryReleaser(IoPool& pool, std::chrono::milliseconds every);
  ~MemoryReleaser();
  MemoryReleaser(const MemoryReleaser&) = delete;
  MemoryReleaser& operator=(const MemoryReleaser&) = delete;

 private:
  void arm(size_t i);

  std::chrono::milliseconds every_;
  std::vector<std::unique_ptr<asio::steady_timer>> timers_;  // one per io_context, ticking on its thread
};

}  // namespace rmq::net
