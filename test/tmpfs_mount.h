#pragma once
// A tmpfs of a given size mounted on a directory for a scope (unit and integration tests of a
// full disk). Unmounted when the scope ends, whatever the test did (lazily: also while a process
// still uses it). ok() is false where mounting is not permitted (not root / no CAP_SYS_ADMIN).
#include <sys/mount.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

namespace rmq::test {

class TmpfsMount {
 public:
  TmpfsMount(std::string dir, const std::string& size) : dir_(std::move(dir)) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    std::string opts = "size=" + size;
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, opts.c_str()) == 0) mounted_ = true;
    else error_ = std::strerror(errno);
  }
  ~TmpfsMount() {
    if (mounted_) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;
  bool ok() const { return mounted_; }
  const std::string& error() const { return error_; }
  const std::string& dir() const { return dir_; }

  // Used share (0..1) of the file system.
  double usedRatio() const {
    struct statvfs st {};
    if (::statvfs(dir_.c_str(), &st) != 0 || st.f_blocks == 0) return -1;
    return 1.0 - static_cast<double>(st.f_bfree) / static_cast<double>(st.f_blocks);
  }
  // Bytes still free.
  int64_t freeBytes() const {
    struct statvfs st {};
    if (::statvfs(dir_.c_str(), &st) != 0) return -1;
    return static_cast<int64_t>(st.f_bfree) * static_cast<int64_t>(st.f_frsize);
  }

 private:
  std::string dir_;
  bool mounted_ = false;
  std::string error_;
};

}  // namespace rmq::test
