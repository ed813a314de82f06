#pragma once
// IndexFile (§6.4): 40-byte header, maxHashSlotNum 4-byte slots, maxIndexNum 20-byte items;
// a hash chain per slot, keyed by Java hashCode of "topic#key".
// Concurrency: put() from the dispatcher thread only; query() from any thread (it reads
// published header fields; a torn read of an item in flight only yields a hash mismatch).
//
// Disk space: the file is sparse by design (420 MB at default sizes, mostly never touched), so it
// is not reserved at creation. put() reserves what it is about to store into first: the 4 KiB
// page of the hash slot on its first touch (one fallocate where the store would take a page fault
// anyway) and the item area in 64 KiB steps. A full disk makes put() answer NoSpace having
// written nothing, never a SIGBUS. query() reads slots of pages it has not reserved with pread,
// which reads a hole as zeros without allocating a page (a read fault on a tmpfs hole would).
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "store/mapped_file.h"

namespace rmq::store {

class IndexFile {
 public:
  static int64_t fileSize(int32_t slots, int32_t items) { return 40 + int64_t(slots) * 4 + int64_t(items) * 20; }
  // Creates a new file (the begin offset/time come from the first put) or opens an existing one.
  static Result<std::shared_ptr<IndexFile>> create(const std::string& path, int32_t slots, int32_t items,
                                                   int64_t beginPhy, int64_t beginTs);
  static Result<std::shared_ptr<IndexFile>> open(const std::string& path, int32_t slots, int32_t items);

  enum class PutOutcome { Stored, Full, NoSpace };
  // Full: no item left (roll over). NoSpace: the disk is full, nothing was written (retry later).
  PutOutcome put(std::string_view fullKey, int64_t phyOffset, int64_t storeTimestamp);
  void query(std::string_view fullKey, int maxNum, int64_t begin, int64_t end, std::vector<int64_t>& out) const;
  // Commit log cut at `phyOffset`: drops the items of records at or beyond it (the newest ones:
  // items are appended in commit log order), unhooks them from their hash chains (a chain's slot
  // goes back to the dropped item's predecessor) and zeroes them; the end offset / time become
  // the last kept item's (`storeTimeOf(phy)`: that record's store time). Synced before it
  // returns. Returns the items left (0: the file holds none). Dispatcher parked; queries may run
  // (a query racing it may still return a dropped offset, which the reader's check discards).
  int32_t truncateFrom(int64_t phyOffset, const std::function<int64_t(int64_t)>& storeTimeOf);
  bool isFull() const { return indexCount() >= items_; }

  int64_t beginTimestamp() const;
  int64_t endTimestamp() const;
  int64_t beginPhyOffset() const;
  int64_t endPhyOffset() const;
  int32_t indexCount() const;
  bool overlaps(int64_t begin, int64_t end) const;
  void flush() { file_->syncAll(); }
  void markDeleted() { file_->markDeleted(); }
  const std::string& path() const { return file_->path(); }

 private:
  static int32_t keyHash(std::string_view key);
  void initPages(int32_t slots, int32_t items);
  bool reserveSlotPage(int64_t slotPos);     // dispatcher thread
  bool reserveItem(int64_t itemPos);         // dispatcher thread
  int32_t slotAt(int64_t slotPos) const;     // any thread
  MappedFilePtr file_;
  int32_t slots_ = 0, items_ = 0;
  std::unique_ptr<std::atomic<uint64_t>[]> reservedPages_;  // bit per 4 KiB page of header+slots
  int64_t itemsReservedEnd_ = 0;                            // items reserved below this byte
  std::atomic<int64_t> endPhy_{0};  // cached for the dispatcher's duplicate guard
};

using IndexFilePtr = std::shared_ptr<IndexFile>;

}  // namespace rmq::store
