#pragma once
// PersistSoon: where a metadata manager's persist() runs after a change. Once the broker set an
// executor (its background thread, after a short coalescing delay: admin_support.h
// persistManagersInBackground) the job goes there, so admin requests never write files on
// network threads; until then it runs in the caller. Coalesced: while a job is handed over and
// not yet started, further changes add none (the job writes the table as it is when it starts),
// so creating N topics costs a bounded number of full-table writes, not N. A failure is logged
// with the file's name. Thread-safe.
#include <atomic>
#include <functional>
#include <mutex>
#include <string>

#include "common/result.h"

namespace rmq::broker {

class PersistSoon {
 public:
  using Executor = std::function<void(std::function<void()>)>;

  // file: for the log line ("topics.json"); persist: the manager's persist().
  PersistSoon(std::string file, std::function<Result<void>()> persist)
      : file_(std::move(file)), persist_(std::move(persist)) {}

  void setExecutor(Executor exec);
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
};

}  // namespace rmq::broker
