#pragma once
// Disk space: the one place where the store reserves the blocks of its files, so a full disk
// shows up as an ENOSPC *value* at a known call, never as a SIGBUS from a store into a mapped
// page the file system cannot back. Small-file writes and error values are in common/file_write.h;
// the ENOSPC fault points (enospc_create: openForWrite; enospc_write: reserveSpace) in
// common/fault_point.h.
#include <cstdint>
#include <optional>
#include <string>

#include "common/file_write.h"

namespace rmq::store {

// Reserves the blocks of [offset, offset + len) of `fd` (fallocate, keeping the size unless the
// range extends it). Returns 0 or an errno (ENOSPC on a full disk). Already reserved blocks cost
// nothing and succeed even on a full disk.
int reserveSpace(int fd, int64_t offset, int64_t len);

// The file system holding `path` as java.io.File reports it: getTotalSpace (f_blocks),
// getFreeSpace (f_bfree: blocks reserved for root included) and getUsableSpace (f_bavail).
struct DiskSpace {
  int64_t totalBytes = 0;
  int64_t freeBytes = 0;
  int64_t usableBytes = 0;
};
std::optional<DiskSpace> diskSpace(const std::string& path);

// Java 4.9.8's UtilAll.getDiskPartitionSpaceUsedPercent: used (total - free) over what a writer
// can reach (used + usable), rounded up to a hundredth; -1 when the path cannot be measured. On
// a file system with reserved blocks 1 - free/total under-reports: it never reaches the
// refuse-writes level (diskSpaceWarningLevelRatio) before writes fail with ENOSPC.
double diskUsedRatio(const std::string& path);

// Creates/opens `path` for reading and writing (O_CREAT); a new file fails with ENOSPC while the
// enospc_create fault point is armed. Returns the fd or -1 with errno set.
int openForWrite(const std::string& path);

}  // namespace rmq::store
