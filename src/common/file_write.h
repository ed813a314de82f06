#pragma once
// Small-file writes that report a full disk as a value, and the ENOSPC fault point the store
// shares (store/disk_space.h reserves blocks of mapped files on top of this).
//
// Fault points (common/fault_point.h): while `enospc_write` is armed the writes below fail with
// ENOSPC, and so does the store's block reservation (except blocks a file already holds, as on a
// real full disk); `enospc_create` fails the store's file creation. setInjectedDiskFull(on) arms
// or disarms both in-process (unit tests); for a whole process RMQNODE_FAULTS="enospc@<path>" (or
// the older RMQNODE_FAULT_ENOSPC=<path>) arms them while that path exists (integration tests
// create/remove it to fill and "free" the disk). The checks run only where a block is about to be
// reserved or written, never per message.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq {

void setInjectedDiskFull(bool on);

// Writes all of `data` at `offset` (pwrite loop; ENOSPC while injected). 0 or an errno.
int writeAllAt(int fd, std::string_view data, int64_t offset);

// Replaces `path` atomically (Java's MixAll.string2File without its window): creates the parent
// directories, writes `<path>.tmp`, fsyncs it, renames it over `path`, fsyncs the directory. On
// any failure (full disk) `path` keeps its previous content and the temp file is removed: a
// reader sees the old file or the new one, never a truncated one. Blocking: not for network threads.
Result<void> replaceFileAtomically(const std::string& path, std::string_view content);

// fsync of a directory: makes the creation, rename or unlink of its entries durable. Blocking.
void fsyncDirectory(const std::string& dir);

// The whole content of a small file, nullopt when it cannot be opened. Blocking.
std::optional<std::string> readWholeFile(const std::string& path);

// An I/O error value: "<what> <path>: <strerror>"; a full disk (ENOSPC, EDQUOT) gets the code
// SERVICE_NOT_AVAILABLE (what the store answers while full), anything else SYSTEM_ERROR.
Error diskError(const std::string& what, const std::string& path, int err);
bool isNoSpace(const Error& e);

}  // namespace rmq
