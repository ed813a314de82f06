#pragma once
// MappedFile: one fixed-size store file (commit log, consume queue, index) mapped read/write.
// Its name is its start offset in the queue's logical space (20-digit decimal, §6.1).
//
// Concurrency: one writer thread at a time (the caller serialises writes); any number of readers.
// The writer stores bytes, then publishes them with setWrote() (release); readers load wrote()
// (acquire) and only read below it. Lifetime: shared_ptr; markDeleted() unlinks the file at once,
// the mapping stays valid until the last owner (e.g. a pull response being written) drops it.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"

namespace rmq::store {

// The page the kernel maps, reserves and writes back: alignment of reserveRange/msync/madvise.
inline constexpr int64_t kPage = 4096;

class MappedFile {
 public:
  // Reserved: every block is reserved at creation (fallocate), so a full disk fails the creation
  // (an Error with code SERVICE_NOT_AVAILABLE for ENOSPC) and no later store into the mapping can
  // fault. Sparse: only the size is set (index files, sparse by design); the writer reserves
  // each range before storing into it (reserveRange).
  enum class Backing { Reserved, Sparse };
  // Creates (or reuses) the file at `path` with exactly `size` bytes.
  static Result<std::shared_ptr<MappedFile>> create(const std::string& path, int64_t fromOffset, int64_t size,
                                                    Backing backing);
  // Opens an existing file; an error if its length is not `size` ("length not matched"). Its
  // blocks are not known to be reserved (a Java-written file is sparse): the writer calls
  // reserveFrom(pos) before its first store, which costs one fallocate per file.
  static Result<std::shared_ptr<MappedFile>> open(const std::string& path, int64_t fromOffset, int64_t size);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  static std::string fileName(int64_t offset);  // 20-digit zero-padded

  char* data() const { return base_; }
  const std::string& path() const { return path_; }
  int64_t fromOffset() const { return from_; }
  int64_t size() const { return size_; }
  int64_t endOffset() const { return from_ + size_; }

  int64_t wrote() const { return wrote_.load(std::memory_order_acquire); }
  void setWrote(int64_t pos) { wrote_.store(pos, std::memory_order_release); }
  int64_t flushed() const { return flushed_.load(std::memory_order_acquire); }
  void setFlushed(int64_t pos) { flushed_.store(pos, std::memory_order_release); }
  bool isFull() const { return wrote() >= size_; }
  int64_t remaining() const { return size_ - wrote(); }

  // Makes sure [pos, size) is backed by reserved blocks before a sequential writer stores at
  // pos. Free after a Reserved creation (one compare); otherwise one fallocate per file. An Error
  // (SERVICE_NOT_AVAILABLE for a full disk) means: do not store, retry later.
  Result<void> reserveFrom(int64_t pos) {
    if (pos >= reservedFrom_.load(std::memory_order_relaxed)) return {};
    return reserveTail(pos);
  }
  // Where the file's first hole starts (size when it has none, or was created here): bytes from
  // there on were never written and read as zeros. Recovery scans stop there instead of reading a
  // hole through the mapping, which faults (SIGBUS) on a full tmpfs. Moves to size once the tail
  // from at or below it is reserved (a writer continues a file opened at load).
  int64_t dataEnd() const { return dataEnd_.load(std::memory_order_acquire); }
  // Reserves [pos, pos + len) (writers at random positions: index files).
  Result<void> reserveRange(int64_t pos, int64_t len);
  // pread of [pos, pos + n): reads holes of a sparse file as zeros without allocating (a read
  // fault on a tmpfs hole allocates a page and can SIGBUS on a full tmpfs).
  bool readAt(int64_t pos, char* out, size_t n) const;

  // msync of [flushed, wrote); returns the new flushed position (unchanged when msync failed).
  // Call from one thread at a time.
  int64_t flush();
  // msync of the whole mapping (files written in place at random positions: index files), then
  // fsync (a hole punched by zeroFrom is a metadata change). False (logged) when either failed.
  bool syncAll();
  // warmMapedFileEnable: writes every page and mlocks the file (Java's warm-up; background thread).
  void warm();
  void adviseSequential() const;  // madvise for a recovery scan
  // Fault in only the touched page, no read-around: for files written a few bytes at a time at
  // scattered places (a consume queue's current file, index files). With the default advice the
  // first store into a fresh file reads (zero-fills) a whole read-ahead window around it, up to
  // read_ahead_kb: 8 MiB on some VMs, i.e. every 6 MB consume-queue file of a 1,024-queue topic
  // zero-filled for its first 20-byte unit.
  void adviseRandom() const;
  void adviseNormal() const;  // back to read-around (a full file from now on only read)
  // Makes [pos, size) read as zeros (hole punch, then re-reserved; pwrite fallback): a truncated
  // torn tail must not resurface as valid-looking data in a later recovery.
  void zeroFrom(int64_t pos);
  void markDeleted();             // unlink now; unmap when the last reference goes
  bool deleted() const { return deleted_.load(); }
  int64_t lastModifiedMs() const;

 private:
  MappedFile() = default;
  Result<void> reserveTail(int64_t pos);
  std::string path_;
  int fd_ = -1;
  char* base_ = nullptr;
  int64_t from_ = 0;
  int64_t size_ = 0;
  std::atomic<int64_t> dataEnd_{0};
  std::atomic<int64_t> wrote_{0};
  std::atomic<int64_t> flushed_{0};
  std::atomic<bool> deleted_{false};
  std::atomic<int64_t> reservedFrom_{0};  // [reservedFrom_, size) has reserved blocks
};

using MappedFilePtr = std::shared_ptr<MappedFile>;

// At load, with `sortedNames` the files of `dir` in creation order: a last file of length 0 was being
// created when the process died (kill -9 between open() and the fallocate/ftruncate that sizes it).
// Nothing can be in it (bytes are written through the mapping, made after sizing): it is removed,
// with a warning, and dropped from the list instead of failing the start.
void dropUnsizedLastFile(const std::string& dir, std::vector<std::string>& sortedNames);

}  // namespace rmq::store
