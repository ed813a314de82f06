#pragma once
// CommitLog: the append-only record log (§4.1, §4.4, §6.1) and its topic-queue → next queue
// offset table.
//
// Concurrency: append()/appendBatch()/appendRaw() serialise on one mutex held only for the
// encode + memcpy into the mapped file (no syscalls; file roll-over takes a preallocated file).
// Bytes are published with MappedFile::setWrote (release) so readers and the dispatcher on other
// threads see complete records only. Reads are lock-free apart from the file-list mutex.
#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/message_codec.h"
#include "store/allocate_service.h"
#include "store/mapped_file_queue.h"
#include "store/store_config.h"
#include "store/store_types.h"

namespace rmq::store {

class CommitLog {
 public:
  CommitLog(const StoreConfig& cfg, const HostAddress& storeHost, AllocateService& allocator);

  Result<void> load() { return files_.load(); }
  MappedFileQueue& files() { return files_; }
  const MappedFileQueue& files() const { return files_; }

  // Fields not taken from `m` (offsets, store time, CRC) are assigned here. `topic`,
  // `queueId` and `properties` are the final ones (after the DELAY rewrite).
  AppendResult append(const MessageToStore& m);
  AppendResult appendBatch(const BatchToStore& b);
  // Slave: copies replicated bytes at `offset` (must be the current end).
  Result<void> appendRaw(int64_t offset, std::string_view bytes);

  ByteView readRecord(int64_t offset) const;  // validated size + magic, else empty
  ByteView read(int64_t offset, int32_t size) const;
  // Up to file end / written end (≤ maxBytes); past a file's dataEnd() (the hole after a Java
  // file's blank marker) a copy read with pread, never a read through the mapping.
  ByteView readRaw(int64_t offset, size_t maxBytes) const;
  int64_t storeTimeAt(int64_t offset, int32_t size) const;  // -1 when unreadable

  int64_t minOffset() const;
  int64_t maxOffset() const { return writtenEnd_.load(std::memory_order_acquire); }  // lock-free
  int64_t flushedOffset() const { return flushed_.load(std::memory_order_acquire); }
  // Flushes written bytes; returns the durable end. Flusher thread only. An msync that fails (or
  // the flush_eio fault point) leaves the durable end where it was and sets flushFailing() until
  // a flush succeeds again; slow_disk delays it.
  int64_t flush();
  bool flushFailing() const { return flushFailed_.load(std::memory_order_acquire); }
  int64_t lastStoreTimestamp() const { return lastStoreTs_.load(std::memory_order_acquire); }
  void setLastStoreTimestamp(int64_t t) { lastStoreTs_.store(t, std::memory_order_release); }

  // Run-time truncation (MessageStore::truncateTo).
  // Where the walk of the record headers of the file holding `offset` (from its start: a file
  // always starts with a record) stops at or below it: `boundary` is the last record start / end
  // at or below `offset` (a blank marker's start counts: the file's room after it is free),
  // `lastRecord` the start of the last whole record before `boundary` in that file (-1: none).
  // Past the written end: from the end. Below minOffset(): both -1.
  struct Boundary {
    int64_t boundary = -1;
    int64_t lastRecord = -1;
  };
  Boundary boundaryAtOrBelow(int64_t offset) const;
  // While blocked, appends (and appendRaw) are refused with SERVICE_NOT_AVAILABLE: a cut and the
  // rebuild of the queue offset table after it see no append in between.
  void setAppendsBlocked(bool blocked) { appendsBlocked_.store(blocked); }
  // Wall-clock ms at which the append holding the lock took it, 0 while no append holds it (Java's
  // beginTimeInLock: a disk that stalls the write shows here). Lock-free, one relaxed load.
  int64_t beginTimeInLock() const { return beginTimeInLock_.load(std::memory_order_relaxed); }
  // Flushes what is written (an error, and nothing cut, when that fails), then cuts at `offset`:
  // files wholly above are deleted, the tail of the one holding it zeroed, the written and
  // durable ends set to `offset`; the zeroed file and the directory are synced before it
  // returns. Readers holding a file (shared_ptr) keep valid memory. Call inside
  // FlushService::cutAt (no flush in flight).
  Result<void> truncateTo(int64_t offset);
  void clearQueueOffsets();  // the table is rebuilt after a cut (StoreEngine::rebuildQueueOffsets)

  // Recovery (open() only): scans from file `startIdx`, calls onRecord for each valid record,
  // stops at the first invalid one; returns the end of the last valid record.
  int64_t scanValid(size_t startIdx, bool checkCRC, const std::function<void(const RecordView&)>& onRecord);
  void setEnd(int64_t end);  // truncate after end, positions set
  void setFlushed(int64_t end) { flushed_.store(end); }

  // Queue offset table.
  void setQueueOffset(std::string_view topic, int queueId, int64_t next);
  void removeTopic(std::string_view topic);

 private:
  static ByteView readPastDataEnd(const MappedFilePtr& f, int64_t pos, int64_t n);
  Result<MappedFilePtr> fileWithRoom(int64_t need);  // lock held
  Result<MappedFilePtr> nextFile();                  // lock held
  int64_t& queueOffsetSlot(std::string_view topic, int queueId);  // lock held

  const StoreConfig& cfg_;
  HostAddress storeHost_;
  AllocateService& allocator_;
  MappedFileQueue files_;
  std::mutex mu_;
  MappedFilePtr current_;  // lock held
  std::unordered_map<std::string, int64_t> queueOffsets_;  // "topic-queueId" → next offset
  std::string keyBuf_;                                      // lock held
  std::atomic<int64_t> flushed_{0};
  std::atomic<bool> flushFailed_{false};
  std::atomic<int64_t> writtenEnd_{0};  // end of published bytes (cheap to poll)
  void publish(const MappedFile& f) { writtenEnd_.store(f.fromOffset() + f.wrote(), std::memory_order_release); }
  std::atomic<int64_t> lastStoreTs_{0};
  std::atomic<bool> appendsBlocked_{false};
  std::atomic<int64_t> beginTimeInLock_{0};
};

}  // namespace rmq::store
