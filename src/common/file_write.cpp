#include "common/file_write.h"


#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/fault_point.h"
#include "common/response_code.h"

namespace rmq {

void setInjectedDiskFull(bool on) {
  for (auto p : {fault::Point::EnospcCreate, fault::Point::EnospcWrite}) {
    if (on) fault::arm(p);
    else fault::disarm(p);
  }
}

Error diskError(const std::string& what, const std::string& path, int err) {
  int code = err == ENOSPC || err == EDQUOT ? ResponseCode::SERVICE_NOT_AVAILABLE : ResponseCode::SYSTEM_ERROR;
  return makeError(code, fmt::format("{} {}: {}", what, path, std::strerror(err)));
}

bool isNoSpace(const Error& e) { return e.code == ResponseCode::SERVICE_NOT_AVAILABLE; }

int writeAllAt(int fd, std::string_view data, int64_t offset) {
  if (fault::armed(fault::Point::EnospcWrite)) return ENOSPC;
  while (!data.empty()) {
    ssize_t n = ::pwrite(fd, data.data(), data.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;
    data.remove_prefix(static_cast<size_t>(n));
    offset += n;
  }
  return 0;
}

Result<void> replaceFileAtomically(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  std::string dir = fs::path(path).parent_path().string();
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return diskError("cannot create", tmp, errno);
  int err = writeAllAt(fd, content, 0);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());  // the old file stays as it was
    return diskError("cannot write", path, err);
  }
  fsyncDirectory(dir.empty() ? "." : dir);  // make the rename itself durable
  return {};
}

void fsyncDirectory(const std::string& dir) {
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;
  ::fsync(dfd);
  ::close(dfd);
}

// One allocation of the file's size and read() calls into it: a stringstream copy of a 20 MB
// topics.json cost a third of a broker's start-up.
std::optional<std::string> readWholeFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  std::string out;
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out.resize(static_cast<size_t>(st.st_size) + 1);  // +1: EOF seen without growing
  size_t used = 0;
  while (true) {
    if (used == out.size()) out.resize(std::max<size_t>(out.size() * 2, 4096));  // grew, or no size known
    ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  out.resize(used);
  return out;
}

}  // namespace rmq
