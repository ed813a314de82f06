#pragma once
// Disk space: the one place where the store reserves the blocks of its files, so a full disk
// shows up as an ENOSPC *value* at a known call, never as a SIGBUS from a store into a mapped
// page the file system cannot back. Small-file writes and error values are in common/file_write.h;
// the ENOSPC fault points (enospc_create: openForWrite; enospc_write: reserveSpace) in
// common/fault_point.h.
#include <cstdint>
#include <string>

#include "common/file_write.h"

namespace rmq::store {

// Reserves the blocks of [offset, offset + len) of `fd` (fallocate, keeping the size unless the
// range extends it). Returns 0 or an errno (ENOSPC on a full disk). Already reserved blocks cost
// nothing and succeed even on a full disk.
int reserveSpace(int fd, int64_t offset, int64_t len);

// Creates/opens `path` for reading and writing (O_CREAT); a new file fails with ENOSPC while the
// enospc_create fault point is armed. Returns the fd or -1 with errno set.
int openForWrite(const std::string& path);

}  // namespace rmq::store
