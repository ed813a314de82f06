#include "store/mapped_file.h"

#include "common/atomic_max.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/falloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "common/response_code.h"
#include "store/disk_space.h"

namespace rmq::store {

namespace {
Error ioError(const std::string& what, const std::string& path) { return diskError(what, path, errno); }
}  // namespace

std::string MappedFile::fileName(int64_t offset) { return fmt::format("{:020d}", offset); }

void dropUnsizedLastFile(const std::string& dir, std::vector<std::string>& sortedNames) {
  if (sortedNames.empty()) return;
  std::string last = dir + "/" + sortedNames.back();
  struct stat st {};
  if (::stat(last.c_str(), &st) != 0 || st.st_size != 0) return;
  log::warn("store: removing {}: length 0, its creation was interrupted", last);
  ::unlink(last.c_str());
  sortedNames.pop_back();
}

Result<std::shared_ptr<MappedFile>> MappedFile::create(const std::string& path, int64_t fromOffset, int64_t size,
                                                       Backing backing) {
  bool existed = ::access(path.c_str(), F_OK) == 0;
  int fd = openForWrite(path);
  if (fd < 0) return ioError("cannot create", path);
  auto fail = [&](Error err) {
    ::close(fd);
    if (!existed) ::unlink(path.c_str());  // no half-made file left behind (a full disk)
    return err;
  };
  if (backing == Backing::Reserved) {
    if (int rc = reserveSpace(fd, 0, size); rc != 0) return fail(diskError("cannot reserve space for", path, rc));
  }
  if (::ftruncate(fd, size) != 0) return fail(ioError("cannot size", path));
  void* p = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return fail(ioError("cannot mmap", path));
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->path_ = path;
  f->fd_ = fd;
  f->base_ = static_cast<char*>(p);
  f->from_ = fromOffset;
  f->size_ = size;
  f->dataEnd_ = size;
  f->reservedFrom_ = backing == Backing::Reserved ? 0 : size;
  return f;
}

Result<std::shared_ptr<MappedFile>> MappedFile::open(const std::string& path, int64_t fromOffset, int64_t size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return ioError("cannot stat", path);
  if (st.st_size != size)
    return makeError(ResponseCode::SYSTEM_ERROR,
                     fmt::format("{}: length {} not matched with configured file size {}", path, st.st_size, size));
  auto f = create(path, fromOffset, size, Backing::Sparse);
  if (!f) return f;
  // A Java-written file is sparse past its data: the first hole bounds what recovery may read
  // through the mapping (on a full tmpfs even a read fault on a hole is a SIGBUS).
  off_t hole = ::lseek(f.value()->fd_, 0, SEEK_HOLE);
  if (hole >= 0 && hole < size) f.value()->dataEnd_ = hole;
  return f;
}

MappedFile::~MappedFile() {
  if (base_) ::munmap(base_, static_cast<size_t>(size_));
  if (fd_ >= 0) ::close(fd_);
}

Result<void> MappedFile::reserveTail(int64_t pos) {
  if (int rc = reserveSpace(fd_, pos, size_ - pos); rc != 0) return diskError("cannot reserve space in", path_, rc);
  reservedFrom_.store(pos, std::memory_order_relaxed);
  if (pos <= dataEnd()) dataEnd_.store(size_, std::memory_order_release);  // no hole left: [0, pos) had none
  return {};
}

Result<void> MappedFile::reserveRange(int64_t pos, int64_t len) {
  if (int rc = reserveSpace(fd_, pos, len); rc != 0) return diskError("cannot reserve space in", path_, rc);
  return {};
}

bool MappedFile::readAt(int64_t pos, char* out, size_t n) const {
  return ::pread(fd_, out, n, pos) == static_cast<ssize_t>(n);
}

int64_t MappedFile::flush() {
  int64_t w = wrote();
  int64_t f = flushed();
  if (w > f) {
    int64_t start = f / kPage * kPage;
    if (::msync(base_ + start, static_cast<size_t>(w - start), MS_SYNC) != 0) {
      // Not durable: the flushed position stays, so no waiter is told PUT_OK and the next flush
      // tries the same range again (the caller sees flushed() < wrote()).
      log::error("msync {} failed: {}", path_, std::strerror(errno));
      return f;
    }
    atomicRaise(flushed_, w);  // a concurrent flush may have gone further
  }
  return flushed();
}

bool MappedFile::syncAll() {
  if (::msync(base_, static_cast<size_t>(size_), MS_SYNC) != 0 || ::fsync(fd_) != 0) {
    log::error("sync of {} failed: {}", path_, std::strerror(errno));
    return false;
  }
  return true;
}

void MappedFile::warm() {
  // Java's warmMappedFile: a write to every page (each takes its write fault now, not under an
  // append), then mlock + MADV_WILLNEED so the pages stay. A new file is all zeros: writing zeros
  // changes nothing on disk. mlock may exceed RLIMIT_MEMLOCK: Java ignores that too (munmap unlocks).
  volatile char* p = base_;
  for (int64_t off = 0; off < size_; off += kPage) p[off] = 0;
  if (::mlock(base_, static_cast<size_t>(size_)) != 0)
    log::debug("mlock {} ({} bytes): {}", path_, size_, std::strerror(errno));
  ::madvise(base_, static_cast<size_t>(size_), MADV_WILLNEED);
}

void MappedFile::adviseSequential() const {
  ::madvise(base_, static_cast<size_t>(size_), MADV_SEQUENTIAL);
}

void MappedFile::adviseRandom() const { ::madvise(base_, static_cast<size_t>(size_), MADV_RANDOM); }

void MappedFile::adviseNormal() const { ::madvise(base_, static_cast<size_t>(size_), MADV_NORMAL); }

void MappedFile::zeroFrom(int64_t pos) {
  if (pos >= size_) return;
  int64_t alignedPos = (pos + kPage - 1) / kPage * kPage;
  // The page holding pos also holds data before it: it is backed, a store cannot fault.
  std::memset(base_ + pos, 0, static_cast<size_t>(std::min(alignedPos, size_) - pos));
  if (alignedPos >= size_) return;
  if (::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, alignedPos, size_ - alignedPos) == 0) {
    if (alignedPos < dataEnd()) dataEnd_.store(alignedPos, std::memory_order_release);
    // Holes now: re-reserve them, or let the next writer's reserveFrom() try again (full disk).
    if (!reserveTail(alignedPos)) reservedFrom_.store(size_, std::memory_order_relaxed);
    return;
  }
  // No hole punching here: overwrite with pwrite, which reports a full disk instead of faulting.
  static const std::string zeros(1 << 16, '\0');
  for (int64_t off = alignedPos; off < size_; off += static_cast<int64_t>(zeros.size())) {
    auto n = static_cast<size_t>(std::min<int64_t>(size_ - off, static_cast<int64_t>(zeros.size())));
    if (int rc = writeAllAt(fd_, std::string_view(zeros.data(), n), off); rc != 0) {
      log::error("cannot zero the tail of {}: {}", path_, std::strerror(rc));
      return;
    }
  }
}

void MappedFile::markDeleted() {
  if (deleted_.exchange(true)) return;
  if (::unlink(path_.c_str()) != 0) log::warn("cannot delete {}: {}", path_, std::strerror(errno));
}

int64_t MappedFile::lastModifiedMs() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return 0;
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

}  // namespace rmq::store
