#include "store/disk_space.h"

#include <fcntl.h>
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

int openForWrite(const std::string& path) {
  if (fault::armed(fault::Point::EnospcCreate) && ::access(path.c_str(), F_OK) != 0) {
    errno = ENOSPC;
    return -1;
  }
  return ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
}

}  // namespace rmq::store
