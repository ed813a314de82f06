#include "roles/broker/metadata/config_file.h"

#include <sys/stat.h>
#include <unistd.h>

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
  // the previous content in place, never a truncated file; .bak then stays as it was too.
  // The previous file becomes <path>.bak by a hard link (taken before the replace, renamed over
  // .bak after it): no copy, so a 20 MB topics.json is not read back and rewritten at every write.
  // Where links are refused the old content is copied, before the main file is touched.
  struct stat st {};
  bool hasOld = ::stat(path.c_str(), &st) == 0 && st.st_size > 0;
  const std::string bak = path + ".bak", linked = path + ".bak.tmp";
  ::unlink(linked.c_str());
  bool isLinked = hasOld && ::link(path.c_str(), linked.c_str()) == 0;
  if (hasOld && !isLinked) {
    if (auto old = readWholeFile(path); old && !blank(*old)) {
      if (auto r = replaceFileAtomically(bak, *old); !r) return r;
    }
  }
  auto written = replaceFileAtomically(path, content);
  if (isLinked && (!written || ::rename(linked.c_str(), bak.c_str()) != 0)) ::unlink(linked.c_str());
  return written;
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
