#include "common/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <unistd.h>
#include <sys/syscall.h>

namespace rmq::log {
namespace {
std::atomic<Level> g_level{Level::Info};
std::mutex g_mu;
FILE* g_file = nullptr;
const char* levelName(Level l) {
  switch (l) {
    case Level::Debug: return "DEBUG";
    case Level::Info: return "INFO ";
    case Level::Warn: return "WARN ";
    default: return "ERROR";
  }
}
}  // namespace

void setLevel(Level l) { g_level.store(l, std::memory_order_relaxed); }
Level level() { return g_level.load(std::memory_order_relaxed); }

bool parseLevel(std::string_view name, Level& out) {
  if (name == "debug" || name == "DEBUG") out = Level::Debug;
  else if (name == "info" || name == "INFO") out = Level::Info;
  else if (name == "warn" || name == "WARN") out = Level::Warn;
  else if (name == "error" || name == "ERROR") out = Level::Error;
  else return false;
  return true;
}

bool openFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "a");
  if (!f) return false;
  std::lock_guard lk(g_mu);
  if (g_file) std::fclose(g_file);
  g_file = f;
  return true;
}

void write(Level l, std::string_view line) {
  using namespace std::chrono;
  auto now = system_clock::now();
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::time_t t = system_clock::to_time_t(now);
  std::tm tm{};
  localtime_r(&t, &tm);
  char ts[32];
  std::strftime(ts, sizeof ts, "%Y-%m-%d %H:%M:%S", &tm);
  auto text = fmt::format("{}.{:03d} {} [{}] {}\n", ts, ms, levelName(l),
                          static_cast<long>(::syscall(SYS_gettid)), line);
  std::lock_guard lk(g_mu);
  std::fwrite(text.data(), 1, text.size(), stderr);
  if (g_file) { std::fwrite(text.data(), 1, text.size(), g_file); std::fflush(g_file); }
}

}  // namespace rmq::log
