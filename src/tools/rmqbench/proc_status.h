#pragma once
// A field of another process's /proc/<pid>/status: what the memory benchmarks sample of the broker.
#include <cstdint>
#include <fmt/format.h>
#include <fstream>
#include <string>

namespace rmq::bench {

// RssAnon of `pid` in KiB (the heap and anonymous mappings: what connections and parked requests
// cost; page cache of the store is not in it); -1 if unreadable.
inline int64_t rssAnonKiB(int64_t pid) {
  std::ifstream in(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("RssAnon:", 0) == 0) return std::stoll(line.substr(8));
  return -1;
}

}  // namespace rmq::bench
