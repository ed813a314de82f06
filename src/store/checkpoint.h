#pragma once
// StoreCheckpoint (§6.5): a 4 KiB file holding three big-endian longs — store time of the last
// flushed commit log message, of the last consume-queue write, of the last full index file.
// Setters are lock-free (any thread); flush() writes and fdatasyncs (background thread). Plain
// pwrite into blocks reserved by load(): a full disk is an error value, never a fault.
#include <atomic>
#include <cstdint>
#include <string>

#include "common/result.h"

namespace rmq::store {

class Checkpoint {
 public:
  explicit Checkpoint(std::string path) : path_(std::move(path)) {}
  ~Checkpoint();
  Result<void> load();  // creates a zero file when missing
  Result<void> flush() { return flush(logics_.load()); }
  // Writes `logicsCovered` as the consume-queue time: what a flush of the queues just covered.
  // The in-memory value (the dispatcher's, maybe newer) is left alone for the next flush.
  Result<void> flush(int64_t logicsCovered);

  int64_t physicMsgTimestamp() const { return physic_.load(); }
  int64_t logicsMsgTimestamp() const { return logics_.load(); }
  int64_t indexMsgTimestamp() const { return index_.load(); }
  void setPhysicMsgTimestamp(int64_t t) { physic_.store(t); }
  void setLogicsMsgTimestamp(int64_t t) { logics_.store(t); }
  void setIndexMsgTimestamp(int64_t t) { index_.store(t); }
  // Java's getMinTimestamp(Index): min(physic, logics[, index]) - 3 s, floored at 0.
  int64_t minTimestamp(bool withIndex) const;

 private:
  std::string path_;
  int fd_ = -1;
  std::atomic<int64_t> physic_{0}, logics_{0}, index_{0};
};

// The `lock` file: an exclusive fcntl lock on byte 0 (what Java's FileChannel.tryLock takes),
// held until release()/destruction, then "lock" written into it.
class StoreLock {
 public:
  ~StoreLock() { release(); }
  Result<void> acquire(const std::string& path);
  void release();

 private:
  int fd_ = -1;
};

}  // namespace rmq::store
