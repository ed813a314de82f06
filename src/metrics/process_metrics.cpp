#include "metrics/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace rmq::metrics {
namespace {

// Process start, wall clock seconds (first call is early in main: static init of this TU's user).
const double kStartSeconds =
    std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();

}  // namespace

void writeProcessMetrics(TextWriter& w) {
  long page = sysconf(_SC_PAGESIZE);
  std::ifstream statm("/proc/self/statm");
  double vsize = 0, rss = 0;
  if (statm >> vsize >> rss) {
    w.family("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge");
    w.sample("process_resident_memory_bytes", {}, rss * static_cast<double>(page));
    w.family("process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge");
    w.sample("process_virtual_memory_bytes", {}, vsize * static_cast<double>(page));
  }
  std::error_code ec;
  size_t fds = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec))
    ++fds;
  w.family("process_open_fds", "Number of open file descriptors.", "gauge");
  w.sample("process_open_fds", {}, static_cast<double>(fds));
  rusage ru{};
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    w.family("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", "counter");
    w.sample("process_cpu_seconds_total", {}, cpu);
  }
  w.family("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", "gauge");
  w.sample("process_start_time_seconds", {}, kStartSeconds);
}

}  // namespace rmq::metrics
