#include "store/mapped_file.h"

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

namespace rmq::store {

namespace {
constexpr int64_t kPage = 4096;
Error ioError(const std::string& what, const std::string& path) {
  return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("{} {}: {}", what, path, std::strerror(errno)));
}
}  // namespace

std::string MappedFile::fileName(int64_t offset) { return fmt::format("{:020d}", offset); }

Result<std::shared_ptr<MappedFile>> MappedFile::create(const std::string& path, int64_t fromOffset, int64_t size,
                                                       bool preallocate) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return ioError("cannot create", path);
  if (preallocate) {
    int rc = ::posix_fallocate(fd, 0, size);
    if (rc != 0 && rc != EOPNOTSUPP && rc != EINVAL) {
      errno = rc;
      auto err = ioError("cannot preallocate", path);
      ::close(fd);
      ::unlink(path.c_str());
      return err;
    }
  }
  if (::ftruncate(fd, size) != 0) {
    auto err = ioError("cannot size", path);
    ::close(fd);
    return err;
  }
  void* p = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    auto err = ioError("cannot mmap", path);
    ::close(fd);
    return err;
  }
  std::shared_ptr<MappedFile> f(new MappedFile());
  f->path_ = path;
  f->fd_ = fd;
  f->base_ = static_cast<char*>(p);
  f->from_ = fromOffset;
  f->size_ = size;
  return f;
}

Result<std::shared_ptr<MappedFile>> MappedFile::open(const std::string& path, int64_t fromOffset, int64_t size) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return ioError("cannot stat", path);
  if (st.st_size != size)
    return makeError(ResponseCode::SYSTEM_ERROR,
                     fmt::format("{}: length {} not matched with configured file size {}", path, st.st_size, size));
  return create(path, fromOffset, size, false);
}

MappedFile::~MappedFile() {
  if (base_) ::munmap(base_, static_cast<size_t>(size_));
  if (fd_ >= 0) ::close(fd_);
}

int64_t MappedFile::flush() {
  int64_t w = wrote();
  int64_t f = flushed();
  if (w > f) {
    int64_t start = f / kPage * kPage;
    if (::msync(base_ + start, static_cast<size_t>(w - start), MS_SYNC) != 0)
      log::error("msync {} failed: {}", path_, std::strerror(errno));
    setFlushed(w);
  }
  return w;
}

void MappedFile::syncAll() {
  if (::msync(base_, static_cast<size_t>(size_), MS_SYNC) != 0)
    log::error("msync {} failed: {}", path_, std::strerror(errno));
}

void MappedFile::warm() {
  volatile char sink = 0;
  for (int64_t off = 0; off < size_; off += kPage) sink = sink + base_[off];
  ::madvise(base_, static_cast<size_t>(size_), MADV_WILLNEED);
}

void MappedFile::adviseSequential() const {
  ::madvise(base_, static_cast<size_t>(size_), MADV_SEQUENTIAL);
}

void MappedFile::zeroFrom(int64_t pos) {
  if (pos >= size_) return;
  int64_t alignedPos = (pos + kPage - 1) / kPage * kPage;
  std::memset(base_ + pos, 0, static_cast<size_t>(std::min(alignedPos, size_) - pos));
  if (alignedPos >= size_) return;
  if (::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, alignedPos, size_ - alignedPos) == 0) {
    ::posix_fallocate(fd_, alignedPos, size_ - alignedPos);
    return;
  }
  std::memset(base_ + alignedPos, 0, static_cast<size_t>(size_ - alignedPos));
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
