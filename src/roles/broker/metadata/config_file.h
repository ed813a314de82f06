#pragma once
// Config-file persistence with Java's MixAll.string2File protocol (PROTOCOL.md §6.8): write
// <file>.tmp, copy the old content to <file>.bak, replace <file>. Each of the two is written to a
// temp file, fsync'd and renamed into place (common/file_write.h), so a full disk returns an error
// and leaves both files as they were. Loading falls back to .bak when the main file is missing,
// empty or rejected by the parser.
// Synchronous file I/O: call from admin / timer / shutdown paths, not per message.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq::broker {

Result<void> writeConfigFile(const std::string& path, std::string_view content);

// Calls `apply` with the content of `path` (or of `path.bak` when the main file is missing,
// empty or `apply` fails on it). Returns false when neither exists (nothing loaded), an Error
// when a file exists but cannot be parsed.
Result<bool> loadConfigFile(const std::string& path,
                            const std::function<Result<void>(std::string_view)>& apply);

}  // namespace rmq::broker
