#pragma once
// Disk space: the one place where the store (and the broker's config files) reserve blocks and
// write small files, so a full disk shows up as an ENOSPC *value* at a known call, never as a
// SIGBUS from a store into a mapped page the file system cannot back.
//
// Fault point (tests): while injected, creating a file, reserving space (except blocks the file
// already holds, as on a real full disk) and the writes below fail with ENOSPC. Injected by
// setInjectedDiskFull(true) in-process (unit tests), or for a whole process by the environment
// variable RMQNODE_FAULT_ENOSPC=<path>: the fault is on while that path exists (integration tests
// create/remove it to fill and "free" the disk). Off by default; the check costs one relaxed load
// when the variable is unset, and runs only where a block is about to be reserved or written.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq::store {

void setInjectedDiskFull(bool on);
bool injectedDiskFull();

// Reserves the blocks of [offset, offset + len) of `fd` (fallocate, keeping the size unless the
// range extends it). Returns 0 or an errno (ENOSPC on a full disk). Already reserved blocks cost
// nothing and succeed even on a full disk.
int reserveSpace(int fd, int64_t offset, int64_t len);

// Creates/opens `path` for reading and writing (O_CREAT); a new file fails with ENOSPC while the
// fault is injected. Returns the fd or -1 with errno set.
int openForWrite(const std::string& path);

// Writes all of `data` at `offset` (pwrite loop; ENOSPC while injected). 0 or an errno.
int writeAllAt(int fd, std::string_view data, int64_t offset);

// Replaces `path` atomically: writes `<path>.tmp`, fsyncs it, renames it over `path`, fsyncs the
// directory. On any failure (full disk) `path` keeps its previous content and the temp file is
// removed: a reader sees the old file or the new one, never a truncated one.
Result<void> replaceFileAtomically(const std::string& path, std::string_view content);

// An I/O error value: "<what> <path>: <strerror>"; a full disk (ENOSPC, EDQUOT) gets the code
// SERVICE_NOT_AVAILABLE (what the store answers while full), anything else SYSTEM_ERROR.
Error diskError(const std::string& what, const std::string& path, int err);
bool isNoSpace(const Error& e);

}  // namespace rmq::store
