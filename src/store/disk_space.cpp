#include "store/disk_space.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>

#include "common/fault_point.h"

namespace rmq::store {

namespace {
// Under the fault, blocks the file already holds stay usable, as on a real full disk: only a
// range with a hole in it (or past the end) fails. Unwritten extents may read as holes
// (ext4), which only makes the fault stricter.
bool fullyAllocated(int fd, int64_t offset, int64_t len) {
  off_t hole = ::lseek(fd, offset, SEEK_HOLE);
  return hole >= 0 && hole >= offset + len;
}
}  // namespace

int reserveSpace(int fd, int64_t offset, int64_t len) {
  if (len <= 0) return 0;
  if (fault::armed(fault::Point::EnospcWrite) && !fullyAllocated(fd, offset, len)) return ENOSPC;
  if (::fallocate(fd, 0, offset, len) == 0) return 0;
  if (errno != EOPNOTSUPP) return errno;
  return ::posix_fallocate(fd, offset, len);  // glibc writes the blocks where fallocate is missing
}

std::optional<DiskSpace> diskSpace(const std::string& path) {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0 || st.f_blocks == 0) return std::nullopt;
  auto bytes = [&](fsblkcnt_t blocks) { return static_cast<int64_t>(blocks) * static_cast<int64_t>(st.f_frsize); };
  return DiskSpace{bytes(st.f_blocks), bytes(st.f_bfree), bytes(st.f_bavail)};
}

double diskUsedRatio(const std::string& path) {
  auto d = diskSpace(path);
  if (!d) return -1;
  int64_t used = d->totalBytes - d->freeBytes;
  int64_t reachable = used + d->usableBytes;
  if (reachable <= 0) return -1;
  int64_t percent = used * 100 / reachable + (used * 100 % reachable != 0 ? 1 : 0);
  return static_cast<double>(percent) / 100.0;
}

int openForWrite(const std::string& path) {
  if (fault::armed(fault::Point::EnospcCreate) && ::access(path.c_str(), F_OK) != 0) {
    errno = ENOSPC;
    return -1;
  }
  return ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
}

}  // namespace rmq::store
