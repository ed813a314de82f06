#pragma once
// EpochFile: `<storePathRootDir>/epochFile`, the ordered (epoch, startOffset) entries of this
// replica's commit log: "bytes from startOffset on were written in epoch N" (automatic failover
// compares two replicas' files to find where their logs part).
//
// Format (RocketMQ 5.x `CheckpointFile`, the serializer of its `EpochFileCache`): a line with the
// entry count, a line with the masked CRC32 (java.util.zip.CRC32 & 0x7FFFFFFF, UtilAll.crc32) of
// the entry lines, then one `epoch-startOffset` line per entry, "\n" line ends. A CRC of 0 is not
// checked (as Java). Written atomically (temp file, fsync, rename, directory fsync) after the
// previous content went to `<path>.bak`; load() falls back to the .bak when the main file is
// missing or corrupt. Unlike Java (whose write() skips an empty list, so an empty main file never
// happens and its reader falls back to .bak on one), an empty but well-formed main file is a
// valid empty list here: truncateFrom() may empty it, and the .bak must not bring entries back.
//
// Thread safety: every method takes one mutex (rarely called: at role changes). Writes block on
// fsync: not for a network thread.
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace rmq::store {

class EpochFile {
 public:
  explicit EpochFile(std::string path);
  // Missing file (and no .bak) = empty list; a corrupt main file -> the .bak; both bad -> error.
  Result<void> load();
  // epoch must be greater than the last one and startOffset not below the last start; persisted
  // before it returns (on a write error the entry is not added).
  Result<void> append(int64_t epoch, int64_t startOffset);
  // Drops entries whose startOffset >= offset (after a commit-log cut); persisted if any.
  Result<void> truncateFrom(int64_t offset);
  int64_t lastEpoch() const;  // 0 when empty
  std::vector<std::pair<int64_t, int64_t>> entries() const;
  // The end of `epoch`'s range in this file: the next entry's startOffset, or INT64_MAX for the
  // last; -1 when the file has no entry for `epoch`.
  int64_t endOf(int64_t epoch) const;
  const std::string& path() const { return path_; }

  // The file content for `entries` / the entries of `content` (error when malformed). Exposed for tests.
  static std::string serialize(const std::vector<std::pair<int64_t, int64_t>>& entries);
  static Result<std::vector<std::pair<int64_t, int64_t>>> parse(const std::string& content);

 private:
  Result<void> persist(const std::vector<std::pair<int64_t, int64_t>>& next);  // mu_ held

  std::string path_;
  mutable std::mutex mu_;
  std::vector<std::pair<int64_t, int64_t>> entries_;
};

}  // namespace rmq::store
