#pragma once
// PersistSoon: where a metadata manager's persist() runs after a change. Once the broker set an
// executor (its background thread, after a short coalescing delay: admin_support.h
// persistManagersInBackground) the job goes there, so admin requests never write files on
// network threads; until then it runs in the caller. Coalesced: while a job is handed over and
// not yet started, further changes add none (the job writes the table as it is when it starts),
// so creating N topics costs a bounded number of full-table writes, not N. The executor is told
// how long to wait before running a job: the last write's duration (at least the floor it adds
// itself), so writes of a big table take at most about half of the background thread. A failure
// is logged with the file's name. Thread-safe.
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "common/result.h"

namespace rmq::broker {

class PersistSoon {
 public:
  // (delay, job): run `job` after `delay`.
  using Executor = std::function<void(std::chrono::milliseconds, std::function<void()>)>;

  // file: for the log line ("topics.json"); persist: the manager's persist().
  PersistSoon(std::string file, std::function<Result<void>()> persist)
      : file_(std::move(file)), persist_(std::move(persist)) {}

  // minGap: a write starts at least max(minGap, the last write's duration) after the last write
  // ended; a change after a quiet spell is written at once (the auto-created topic of a send
  // that is then acknowledged must not wait a coalescing delay: broker README).
  void setExecutor(Executor exec, std::chrono::milliseconds minGap);
  void operator()();
  // Full-table writes done so far (tests, the topic benchmark's explanation).
  uint64_t writes() const { return writes_.load(std::memory_order_relaxed); }

 private:
  void run();

  std::string file_;
  std::function<Result<void>()> persist_;
  std::mutex mu_;
  Executor exec_;
  std::atomic<bool> queued_{false};
  std::atomic<uint64_t> writes_{0};
  std::atomic<int64_t> lastWriteMillis_{0};
  std::atomic<int64_t> lastWriteEndNanos_{0};  // steady_clock; 0: none yet
  std::chrono::milliseconds minGap_{0};          // mu_
};

}  // namespace rmq::broker
