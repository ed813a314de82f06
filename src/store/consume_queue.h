#pragma once
// ConsumeQueue (§6.2): 20-byte units (commit log offset, record size, tags code) of one
// topic/queue; unit i lives at logical byte i*20.
//
// Concurrency: putUnit/recover/truncate run on one thread at a time (the dispatcher, or open());
// readers use unitsFrom()/unit() concurrently (published positions, shared_ptr files).
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "store/mapped_file_queue.h"

namespace rmq::store {

inline constexpr int64_t kCqUnitSize = 20;

struct CqUnit {
  int64_t phyOffset = 0;
  int32_t size = 0;
  int64_t tagsCode = 0;
};

class ConsumeQueue {
 public:
  ConsumeQueue(std::string topic, int queueId, const std::string& rootDir, int64_t fileSize);
  const std::string& topic() const { return topic_; }
  int queueId() const { return queueId_; }

  Result<void> load();
  // Scans from the 3rd-last file to the first invalid unit and truncates there. A unit that is
  // neither valid nor zeros (the end of what was written), or whose record lies before the
  // previous unit's, is damage: returns the commit log offset to re-dispatch from to rebuild the
  // cut units (the end of the last good unit's record; 0 when none), else -1.
  int64_t recover();

  // Writes unit `cqOffset`; skips units already present (recovery re-dispatch). Dispatcher only.
  // An error (no file, full disk) writes nothing: the caller retries the same unit later.
  Result<void> putUnit(int64_t cqOffset, int64_t phyOffset, int32_t size, int64_t tagsCode);

  // Units readable from `index` within its file: pointer to the first one and how many follow.
  struct UnitRange {
    MappedFilePtr file;
    const char* data = nullptr;
    int64_t count = 0;
    CqUnit at(int64_t i) const;
  };
  std::optional<UnitRange> unitsFrom(int64_t index) const;
  std::optional<CqUnit> unit(int64_t index) const;

  int64_t minOffset() const { return minLogicOffset_.load() / kCqUnitSize; }
  int64_t maxOffset() const { return files_.maxOffset() / kCqUnitSize; }  // next index to write
  int64_t maxPhysicOffset() const { return maxPhysicOffset_.load(); }  // end of the last unit's record
  int64_t unitsPerFile() const { return files_.fileSize() / kCqUnitSize; }

  // Drops units whose record starts at or beyond `phyEnd` (commit log truncated). Walks back
  // from the last unit (records of one queue only move forward in the commit log), so it reads
  // only the units it drops. `durable`: synced before it returns (a cut at run time).
  void truncateDirty(int64_t phyEnd, bool durable = false);
  // minOffset = first unit whose record is at or beyond the commit log's min offset.
  void correctMinOffset(int64_t phyMin);
  // Deletes files whose last unit points below phyMin; returns count.
  int deleteExpiredFiles(int64_t phyMin);
  void flush(int leastPages = 0) { files_.flush(leastPages); }
  void destroy() { files_.destroy(); }

 private:
  std::string topic_;
  int queueId_;
  MappedFileQueue files_;
  std::atomic<int64_t> minLogicOffset_{0};  // bytes
  std::atomic<int64_t> maxPhysicOffset_{-1};
};

}  // namespace rmq::store
