#include "roles/broker/metadata/config_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/log.h"

namespace rmq::broker {
namespace fs = std::filesystem;

namespace {

std::optional<std::string> readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

Result<void> writeConfigFile(const std::string& path, std::string_view content) {
  std::error_code ec;
  fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return makeError(1, fmt::format("cannot write {}: {}", tmp, std::strerror(errno)));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) return makeError(1, fmt::format("short write to {}", tmp));
  }
  if (auto old = readWhole(path); old && !blank(*old)) {
    std::ofstream bak(path + ".bak", std::ios::binary | std::ios::trunc);
    bak.write(old->data(), static_cast<std::streamsize>(old->size()));
  }
  fs::rename(tmp, path, ec);
  if (ec) return makeError(1, fmt::format("cannot rename {} to {}: {}", tmp, path, ec.message()));
  return {};
}

Result<bool> loadConfigFile(const std::string& path,
                            const std::function<Result<void>(std::string_view)>& apply) {
  std::string firstError;
  for (const std::string& candidate : {path, path + ".bak"}) {
    auto content = readWhole(candidate);
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
