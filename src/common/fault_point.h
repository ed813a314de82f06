#pragma once
// Named fault points: places in the product where a test or a drill can make a system call
// "fail" (or stall) on purpose, to show that the broker answers a clear RocketMQ code, loses
// nothing it acknowledged, and recovers when the fault goes away.
//
// Off unless armed; `armed(p)` costs one relaxed load of a global mask when nothing armed it.
// Armed two ways:
//  - in-process (unit tests): `fault::arm(Point, arg)` / `fault::disarm(Point)`;
//  - for a whole process, by the environment variable
//        RMQNODE_FAULTS="name[:arg][@flagfile],..."     e.g. flush_eio@/tmp/eio,ha_delay:800
//    A point with a flag file is armed while that file exists (checked at most every
//    kFlagRecheck per point), so a test or `scripts/drill.sh` toggles it on a running process
//    by creating and removing the file; a number written into the file overrides `arg`.
//    A point without a flag file is armed from start-up. Unknown names are logged (warn), ignored;
//    main() logs every configured point once (logConfigured).
//    The older RMQNODE_FAULT_ENOSPC=<path> still works: it is `enospc@<path>`.
//
// Points (name — where — what happens):
//  commitlog_append — MessageStore::append/appendBatch — the append fails: UNKNOWN_ERROR
//                     (SYSTEM_ERROR "UNKNOWN_ERROR: ..."), nothing is written;
//  flush_eio        — CommitLog::flush (its msync) — msync "fails" with EIO: the flushed
//                     position stays, waiting SYNC_FLUSH sends get FLUSH_DISK_TIMEOUT at once;
//  enospc_create    — store/disk_space openForWrite — creating a new store file fails (ENOSPC);
//  enospc_write     — block reservation (fallocate) and small-file writes (writeAllAt) — ENOSPC;
//  enospc           — both of the above (what RMQNODE_FAULT_ENOSPC arms);
//  dispatch_stall   — Dispatcher thread — builds no consume-queue/index entries while armed
//                     (appends go on; consumers see the messages once it is disarmed);
//  ha_drop          — HaMaster connection writer — closes the slave's connection before a send;
//  ha_delay:MS      — HaMaster connection writer — waits MS (default 1000) before each frame;
//  slow_disk:MS     — commit log flush — sleeps MS (default 100) before each msync;
//  append_stall:MS  — CommitLog::append/appendBatch — sleeps MS (default 2000) while holding the
//                     append lock, before writing (a page fault on a slow disk): other sends
//                     see the lock held (pageCacheLockTimeMills) and get Java's busy answers.
//  publish_delay:MS — CommitLog::append — sleeps MS (default 500) between moving the file's write
//                     position and publishing the new end (maxPhyOffset): the window a descheduled
//                     appender leaves open, in which HA must not ship the bytes.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>

namespace rmq::fault {

enum class Point : uint8_t {
  CommitLogAppend,
  FlushEio,
  EnospcCreate,
  EnospcWrite,
  DispatchStall,
  HaDrop,
  HaDelay,
  SlowDisk,
  AppendStall,
  PublishDelay,
  kCount
};

std::string_view nameOf(Point p);

namespace detail {
extern std::atomic<uint32_t> gMask;  // bit per point that is armed in-process or configured by env
bool check(Point p);                 // slow path: in-process flag or the env point's flag file
}  // namespace detail

inline bool armed(Point p) {
  if ((detail::gMask.load(std::memory_order_relaxed) & (1u << static_cast<unsigned>(p))) == 0) return false;
  return detail::check(p);
}

// The point's argument (a delay in ms for ha_delay / slow_disk), `fallback` when none was given.
int64_t arg(Point p, int64_t fallback);

// In-process arming (tests). Overrides nothing of the environment's configuration.
void arm(Point p, int64_t arg = -1);
void disarm(Point p);

// Arms a point for a scope (tests): disarmed again however the scope ends.
class ScopedArm {
 public:
  explicit ScopedArm(Point p, int64_t a = -1) : p_(p) { arm(p, a); }
  ~ScopedArm() { disarm(p_); }
  ScopedArm(const ScopedArm&) = delete;
  ScopedArm& operator=(const ScopedArm&) = delete;

 private:
  Point p_;
};

// RMQNODE_FAULTS / RMQNODE_FAULT_ENOSPC are parsed before main(); this logs (warn) what they
// configured and any name it did not know. Called once by main().
void logConfigured();

inline constexpr std::chrono::milliseconds kFlagRecheck{20};

}  // namespace rmq::fault
