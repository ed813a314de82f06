#pragma once
// MappedFileQueue: the ordered files of one logical byte space (the commit log, or one consume
// queue), each `fileSize` bytes and named by its start offset.
//
// Concurrency: the file list is guarded by an internal mutex (snapshots are shared_ptr copies);
// writes into the files are serialised by the owner (CommitLog lock / dispatcher thread).
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "store/mapped_file.h"

namespace rmq::store {

class MappedFileQueue {
 public:
  // Supplies a new file for `startOffset` (the commit log plugs its background preallocator in).
  using Allocator = std::function<Result<MappedFilePtr>(const std::string& path, int64_t startOffset, int64_t size)>;

  MappedFileQueue(std::string dir, int64_t fileSize);
  void setAllocator(Allocator a) { allocator_ = std::move(a); }
  // Files created by fileAt() fault in page by page while they are the one written (small
  // scattered stores: consume queues), and read ahead again once the next file takes over.
  void setPageByPageWrites(bool on) { pageByPageWrites_ = on; }

  // Opens every file in the directory in name order (creating the directory). Each file starts
  // fully written (wrote = flushed = size); recovery then calls setEnd().
  Result<void> load();
  const std::string& dir() const { return dir_; }
  int64_t fileSize() const { return fileSize_; }

  MappedFilePtr first() const;
  MappedFilePtr last() const;
  MappedFilePtr findByOffset(int64_t offset) const;  // file containing offset, or null
  std::vector<MappedFilePtr> snapshot() const;
  size_t count() const;
  bool empty() const { return count() == 0; }

  // The file that starts at `startOffset` (must be a multiple of fileSize): the last one if it
  // matches, else a new one appended to the queue (blocks reserved; the directory is re-created
  // if it is missing). An error (SERVICE_NOT_AVAILABLE code on a full disk) leaves the queue as is.
  Result<MappedFilePtr> fileAt(int64_t startOffset);

  int64_t minOffset() const;      // start of the first file, -1 when empty
  int64_t maxOffset() const;      // end of written bytes, 0 when empty
  int64_t flushedOffset() const;  // end of flushed bytes
  // Flushes every file with unflushed bytes; returns the flushed end. With leastPages > 0 a file
  // not yet full is left alone until that many 4 KiB pages are dirty (Java's isAbleToFlush).
  int64_t flush(int leastPages = 0);

  // Recovery: files below `end` become full, the file containing it gets wrote = flushed =
  // end - from (the rest zeroed), files wholly above it are deleted ("truncate dirty files").
  // `durable` (a cut at run time): the zeroed file is synced (msync + fsync) and, when files
  // were deleted, the directory too, before it returns. Recovery skips that (thousands of
  // queues; a stale tail is cut again at the next start).
  void setEnd(int64_t end, bool durable = false);
  // Deletes files whose whole range lies below `offset` (never the last file). Returns count.
  int deleteFilesBelow(int64_t offset);
  // Deletes the first file if `pred(file)` holds, up to `maxFiles`, never the last file.
  int deleteFirstWhile(const std::function<bool(const MappedFile&)>& pred, int maxFiles);
  void destroy();  // deletes every file and the directory

 private:
  std::string dir_;
  int64_t fileSize_;
  Allocator allocator_;
  bool pageByPageWrites_ = false;
  mutable std::mutex mu_;
  std::vector<MappedFilePtr> files_;
};

}  // namespace rmq::store
