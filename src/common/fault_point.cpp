#include "common/fault_point.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "common/log.h"

namespace rmq::fault {

namespace {

constexpr std::array<std::string_view, static_cast<size_t>(Point::kCount)> kNames{
    "commitlog_append", "flush_eio", "enospc_create", "enospc_write",
    "dispatch_stall",   "ha_drop",   "ha_delay",      "slow_disk",
    "append_stall",     "publish_delay"};

struct Slot {
  std::atomic<bool> inProcess{false};
  std::atomic<int64_t> inProcessArg{-1};
  // From the environment (written before main, read-only afterwards).
  bool fromEnv = false;
  std::string flagFile;  // empty: armed from start-up
  int64_t envArg = -1;
  // Flag file state, rechecked at most every kFlagRecheck.
  std::atomic<int64_t> nextCheckNs{0};
  std::atomic<bool> flagPresent{false};
  std::atomic<int64_t> fileArg{-1};
};

std::array<Slot, static_cast<size_t>(Point::kCount)> gSlots;
std::vector<std::string> gUnknown;  // names RMQNODE_FAULTS gave that we do not know

Slot& slot(Point p) { return gSlots[static_cast<size_t>(p)]; }

int64_t parseNumber(std::string_view s, int64_t fallback) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  int64_t v = fallback;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() ? v : fallback;
}

void configure(Point p, std::string_view flag, int64_t arg) {
  Slot& s = slot(p);
  s.fromEnv = true;
  s.flagFile.assign(flag);
  s.envArg = arg;
}

// One "name[:arg][@flagfile]" item of RMQNODE_FAULTS.
void parseItem(std::string_view item) {
  std::string_view flag;
  if (auto at = item.find('@'); at != std::string_view::npos) {
    flag = item.substr(at + 1);
    item = item.substr(0, at);
  }
  int64_t arg = -1;
  if (auto colon = item.find(':'); colon != std::string_view::npos) {
    arg = parseNumber(item.substr(colon + 1), -1);
    item = item.substr(0, colon);
  }
  if (item == "enospc") {
    configure(Point::EnospcCreate, flag, arg);
    configure(Point::EnospcWrite, flag, arg);
    return;
  }
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == item) return configure(static_cast<Point>(i), flag, arg);
  if (!item.empty()) gUnknown.emplace_back(item);
}

uint32_t loadEnvironment() {
  if (const char* legacy = std::getenv("RMQNODE_FAULT_ENOSPC"); legacy && *legacy)
    parseItem(std::string("enospc@") + legacy);
  if (const char* spec = std::getenv("RMQNODE_FAULTS")) {
    std::string_view rest(spec);
    while (!rest.empty()) {
      auto comma = rest.find(',');
      parseItem(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
  }
  uint32_t mask = 0;
  for (size_t i = 0; i < gSlots.size(); ++i)
    if (gSlots[i].fromEnv) mask |= 1u << i;
  return mask;
}

int64_t coarseNowNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// Reads the flag file: present or not, and the number in it (if any).
void refreshFlag(Slot& s) {
  int fd = ::open(s.flagFile.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    s.flagPresent.store(false, std::memory_order_relaxed);
    return;
  }
  char buf[32];
  ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  s.fileArg.store(n > 0 ? parseNumber(std::string_view(buf, size_t(n)), -1) : -1, std::memory_order_relaxed);
  s.flagPresent.store(true, std::memory_order_relaxed);
}

}  // namespace

namespace detail {
std::atomic<uint32_t> gMask{loadEnvironment()};  // after gSlots: same translation unit, constructed in order

bool check(Point p) {
  Slot& s = slot(p);
  if (s.inProcess.load(std::memory_order_relaxed)) return true;
  if (!s.fromEnv) return false;
  if (s.flagFile.empty()) return true;
  int64_t now = coarseNowNs();
  int64_t next = s.nextCheckNs.load(std::memory_order_relaxed);
  if (now >= next && s.nextCheckNs.compare_exchange_strong(next, now + kFlagRecheck.count() * 1'000'000))
    refreshFlag(s);
  return s.flagPresent.load(std::memory_order_relaxed);
}
}  // namespace detail

std::string_view nameOf(Point p) { return kNames[static_cast<size_t>(p)]; }

int64_t arg(Point p, int64_t fallback) {
  Slot& s = slot(p);
  if (s.inProcess.load(std::memory_order_relaxed)) {
    int64_t v = s.inProcessArg.load(std::memory_order_relaxed);
    return v >= 0 ? v : fallback;
  }
  if (int64_t v = s.fileArg.load(std::memory_order_relaxed); v >= 0) return v;
  return s.envArg >= 0 ? s.envArg : fallback;
}

void arm(Point p, int64_t a) {
  Slot& s = slot(p);
  s.inProcessArg.store(a, std::memory_order_relaxed);
  s.inProcess.store(true, std::memory_order_relaxed);
  detail::gMask.fetch_or(1u << static_cast<unsigned>(p));
}

void disarm(Point p) {
  Slot& s = slot(p);
  s.inProcess.store(false, std::memory_order_relaxed);
  if (!s.fromEnv) detail::gMask.fetch_and(~(1u << static_cast<unsigned>(p)));
}

void logConfigured() {
  for (size_t i = 0; i < gSlots.size(); ++i) {
    const Slot& s = gSlots[i];
    if (!s.fromEnv) continue;
    log::warn("fault point {} is configured ({}{}): for tests and drills only", kNames[i],
              s.flagFile.empty() ? "armed" : "armed while " + s.flagFile + " exists",
              s.envArg >= 0 ? ", arg " + std::to_string(s.envArg) : "");
  }
  for (const auto& name : gUnknown) log::warn("RMQNODE_FAULTS: unknown fault point '{}' ignored", name);
}

}  // namespace rmq::fault
