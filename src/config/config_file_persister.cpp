#include "config/config_file_persister.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/file_write.h"
#include "common/log.h"

namespace rmq::config {
namespace {

std::string keyList(const std::vector<KeyUpdate>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k.key + "=" + k.value.describe();
  return out;
}

// The file a path names (a symlink's target: replacing the link itself would detach it).
std::string resolved(const std::string& path) {
  std::error_code ec;
  auto real = std::filesystem::weakly_canonical(path, ec);
  return ec ? path : real.string();
}

}  // namespace

ConfigFilePersister::ConfigFilePersister(std::string path, const std::vector<ConfigSection>& sections)
    : path_(std::move(path)), format_(configFormatOf(path_)), sections_(sectionKeysOf(sections)) {}

PendingUpdate ConfigFilePersister::capture(const std::vector<ConfigSection>& sections,
                                           const std::vector<std::string>& keys) {
  return PendingUpdate{++lastTicket_, keyUpdatesOf(sections, keys)};
}

Result<void> ConfigFilePersister::write(const PendingUpdate& update) {
  if (update.keys.empty()) return {};
  std::string names = keyList(update.keys);
  if (!hasFile()) {
    log::warn("config: {} changed in memory only: rmqnode was started without --config, so the change is lost "
              "at the next start",
              names);
    return {};
  }
  std::lock_guard lk(mu_);
  std::vector<KeyUpdate> newest;  // keys no later update has written yet
  for (const auto& k : update.keys)
    if (writtenTicket_[k.section + "." + k.key] < update.ticket) newest.push_back(k);
  if (newest.empty()) return {};
  auto written = writeLocked(newest);
  if (!written) {
    log::error("config: could not write {} to {}: {}; the new values are in force until the next start", names,
               path_, written.error().message);
    return written;
  }
  for (const auto& k : newest) writtenTicket_[k.section + "." + k.key] = update.ticket;
  log::info("config: {} written to {}", names, path_);
  return {};
}

Result<void> ConfigFilePersister::writeLocked(const std::vector<KeyUpdate>& keys) {
  if (keys.empty()) return {};
  if (!format_) return makeError(1, "unknown config file type");
  std::string target = resolved(path_);
  auto text = readWholeFile(target);
  if (!text) return makeError(1, fmt::format("cannot read it: {}", std::strerror(errno)));
  struct stat st {};
  bool haveMode = ::stat(target.c_str(), &st) == 0;
  if (::access(target.c_str(), W_OK) != 0)
    return makeError(1, fmt::format("it is not writable: {}", std::strerror(errno)));
  auto edited = updateConfigText(*text, *format_, keys, sections_, path_);
  if (!edited) return edited.error();
  if (*edited == *text) return {};
  // The previous content stays beside it as FILE.bak, as Java's MixAll.string2File leaves it.
  if (auto backup = replaceFileAtomically(target + ".bak", *text); !backup) return backup.error();
  if (auto replaced = replaceFileAtomically(target, *edited); !replaced) return replaced.error();
  if (haveMode) ::chmod(target.c_str(), st.st_mode & 07777);  // the new file keeps the old one's permissions
  return {};
}

}  // namespace rmq::config
