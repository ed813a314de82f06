#include "roles/broker/metadata/config_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/log.h"
#include "common/file_write.h"

namespace rmq::broker {
namespace fs = std::filesystem;

namespace {

bool blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

Result<void> writeConfigFile(const std::string& path, std::string_view content) {
  // Each file is replaced whole (temp file, fsync, rename): a full disk fails the write and leaves
  // the previous content in place, never a truncated file. The backup first: if it cannot be
  // written, the main file is not touched either.
  if (auto old = readWholeFile(path); old && !blank(*old)) {
    if (auto r = replaceFileAtomically(path + ".bak", *old); !r) return r;
  }
  return replaceFileAtomically(path, content);
}

Result<bool> loadConfigFile(const std::string& path,
                            const std::function<Result<void>(std::string_view)>& apply) {
  std::string firstError;
  for (const std::string& candidate : {path, path + ".bak"}) {
    auto content = readWholeFile(candidate);
    if (!content || blank(*content)) continue;
    auto r = apply(*content);
    if (r) {
      if (candidate != path) log::warn("loaded {} from its backup {}", path, candidate);
      return true;
    }
    log::warn("cannot parse {}: {}", candidate, r.error().message);
    if (firstError.empty()) firstError = candidate + ": " + r.error().message;
  }
  if (!firstError.empty()) return makeError(1, firstError);
  return false;
}

}  // namespace rmq::broker
