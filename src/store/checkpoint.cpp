#include "store/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/bytes.h"
#include "common/response_code.h"
#include "store/disk_space.h"

namespace rmq::store {

namespace {
Error sysError(const std::string& what, const std::string& path) {
  return makeError(ResponseCode::SYSTEM_ERROR, what + " " + path + ": " + std::strerror(errno));
}
}  // namespace

Checkpoint::~Checkpoint() {
  if (fd_ >= 0) ::close(fd_);
}

Result<void> Checkpoint::load() {
  fd_ = openForWrite(path_);
  if (fd_ < 0) return diskError("cannot open checkpoint", path_, errno);
  char buf[24] = {};
  ssize_t n = ::pread(fd_, buf, sizeof buf, 0);
  if (n < 0) return sysError("cannot read checkpoint", path_);
  if (n == sizeof buf) {
    physic_ = static_cast<int64_t>(loadBE64(buf));
    logics_ = static_cast<int64_t>(loadBE64(buf + 8));
    index_ = static_cast<int64_t>(loadBE64(buf + 16));
  }
  if (::ftruncate(fd_, 4096) != 0) return sysError("cannot size checkpoint", path_);
  // Blocks reserved now, so a later flush() on a full disk still rewrites them in place.
  if (int rc = reserveSpace(fd_, 0, 4096); rc != 0) return diskError("cannot reserve checkpoint", path_, rc);
  return {};
}

Result<void> Checkpoint::flush(int64_t logicsCovered) {
  if (fd_ < 0) return {};
  char buf[24];
  storeBE64(buf, static_cast<uint64_t>(physic_.load()));
  storeBE64(buf + 8, static_cast<uint64_t>(logicsCovered));
  storeBE64(buf + 16, static_cast<uint64_t>(index_.load()));
  int rc = writeAllAt(fd_, std::string_view(buf, sizeof buf), 0);
  if (rc == 0 && ::fdatasync(fd_) != 0) rc = errno;
  if (rc != 0) return diskError("cannot write checkpoint", path_, rc);
  return {};
}

int64_t Checkpoint::minTimestamp(bool withIndex) const {
  int64_t m = std::min(physic_.load(), logics_.load());
  if (withIndex) m = std::min(m, index_.load());
  m -= 3000;
  return m < 0 ? 0 : m;
}

Result<void> StoreLock::acquire(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return sysError("cannot open lock file", path);
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 1;
  // OFD lock: conflicts with Java's POSIX lock and also with a second open in this process.
  if (::fcntl(fd_, F_OFD_SETLK, &fl) != 0) {
    ::close(fd_);
    fd_ = -1;
    return makeError(ResponseCode::SYSTEM_ERROR,
                     "store " + path + " is locked: another broker process is using this store directory");
  }
  if (::pwrite(fd_, "lock", 4, 0) != 4) return sysError("cannot write lock file", path);
  return {};
}

void StoreLock::release() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the fcntl lock
  fd_ = -1;
}

}  // namespace rmq::store
