#include "store/epoch_file.h"

#include <fmt/format.h>

#include <charconv>
#include <climits>
#include <filesystem>

#include "common/file_write.h"
#include "common/log.h"
#include "common/message_codec.h"
#include "common/response_code.h"

namespace rmq::store {

namespace {
using Entries = std::vector<std::pair<int64_t, int64_t>>;

Error malformed(const std::string& why) { return makeError(ResponseCode::SYSTEM_ERROR, "epoch file: " + why); }

bool parseInt(std::string_view s, int64_t& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// The next line of `rest` (without its "\n"); false at the end.
bool nextLine(std::string_view& rest, std::string_view& line) {
  if (rest.empty()) return false;
  auto nl = rest.find('\n');
  line = rest.substr(0, nl);
  rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
  return true;
}
}  // namespace

EpochFile::EpochFile(std::string path) : path_(std::move(path)) {}

std::string EpochFile::serialize(const Entries& entries) {
  std::string lines;
  for (auto& [epoch, start] : entries) lines += fmt::format("{}-{}\n", epoch, start);
  return fmt::format("{}\n{}\n{}", entries.size(), crc32Masked(lines), lines);
}

Result<Entries> EpochFile::parse(const std::string& content) {
  std::string_view rest = content, line;
  int64_t count = 0, crc = 0;
  if (!nextLine(rest, line) || !parseInt(line, count) || count < 0) return malformed("bad count line");
  if (!nextLine(rest, line) || !parseInt(line, crc)) return malformed("bad crc line");
  std::string_view lines = rest;
  Entries out;
  while (nextLine(rest, line)) {
    if (line.empty()) continue;
    auto dash = line.find('-', 1);  // an epoch is positive; a '-' at 0 would be a sign
    int64_t epoch = 0, start = 0;
    if (dash == std::string_view::npos || !parseInt(line.substr(0, dash), epoch) ||
        !parseInt(line.substr(dash + 1), start))
      return malformed(fmt::format("bad entry line '{}'", line));
    if (!out.empty() && (epoch <= out.back().first || start < out.back().second))
      return malformed(fmt::format("entry {}-{} out of order", epoch, start));
    out.emplace_back(epoch, start);
  }
  if (static_cast<int64_t>(out.size()) != count)
    return malformed(fmt::format("expected {} entries, found {}", count, out.size()));
  if (crc != 0 && crc != crc32Masked(lines)) return malformed("crc mismatch");
  return out;
}

Result<void> EpochFile::load() {
  std::lock_guard lock(mu_);
  std::string bak = path_ + ".bak";
  auto main = readWholeFile(path_);
  if (main) {
    auto parsed = parse(*main);
    if (parsed) {
      entries_ = std::move(parsed.value());
      return {};
    }
    log::warn("{}: {}; trying {}", path_, parsed.error().message, bak);
  }
  auto backup = readWholeFile(bak);
  if (!backup) {
    if (main) return makeError(ResponseCode::SYSTEM_ERROR, path_ + " is corrupt and has no .bak");
    entries_.clear();  // never written
    return {};
  }
  auto parsed = parse(*backup);
  if (!parsed) return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("{} and its .bak are unreadable: {}", path_,
                                                                        parsed.error().message));
  entries_ = std::move(parsed.value());
  log::warn("{}: loaded {} entries from {}", path_, entries_.size(), bak);
  return {};
}

Result<void> EpochFile::persist(const Entries& next) {
  // The previous content becomes the .bak first: a crash between the two writes leaves both files
  // holding the previous list, never a missing or half-written main file.
  if (std::error_code ec; std::filesystem::exists(path_, ec))
    if (auto r = replaceFileAtomically(path_ + ".bak", serialize(entries_)); !r) return r;
  if (auto r = replaceFileAtomically(path_, serialize(next)); !r) return r;
  entries_ = next;
  return {};
}

Result<void> EpochFile::append(int64_t epoch, int64_t startOffset) {
  std::lock_guard lock(mu_);
  if (epoch <= 0) return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("epoch {} must be positive", epoch));
  if (!entries_.empty() && (epoch <= entries_.back().first || startOffset < entries_.back().second))
    return makeError(ResponseCode::SYSTEM_ERROR,
                     fmt::format("epoch {} at offset {} does not follow the last entry {}-{}", epoch, startOffset,
                                 entries_.back().first, entries_.back().second));
  Entries next = entries_;
  next.emplace_back(epoch, startOffset);
  return persist(next);
}

Result<void> EpochFile::truncateFrom(int64_t offset) {
  std::lock_guard lock(mu_);
  Entries next;
  for (auto& e : entries_)
    if (e.second < offset) next.push_back(e);
  if (next.size() == entries_.size()) return {};
  return persist(next);
}

int64_t EpochFile::lastEpoch() const {
  std::lock_guard lock(mu_);
  return entries_.empty() ? 0 : entries_.back().first;
}

Entries EpochFile::entries() const {
  std::lock_guard lock(mu_);
  return entries_;
}

int64_t EpochFile::endOf(int64_t epoch) const {
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].first == epoch) return i + 1 < entries_.size() ? entries_[i + 1].second : INT64_MAX;
  return -1;
}

}  // namespace rmq::store
