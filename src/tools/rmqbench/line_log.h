#pragma once
// One log file of the drill clients written by several threads, a line at a time, flushed per line
// (a kill of the drill tool loses at most the line being written).
#include <cstdio>
#include <mutex>
#include <string>

namespace rmq::bench {

class LineLog {
 public:
  explicit LineLog(const std::string& path) : f_(std::fopen(path.c_str(), "a")) {}
  ~LineLog() {
    if (f_) std::fclose(f_);
  }
  LineLog(const LineLog&) = delete;
  LineLog& operator=(const LineLog&) = delete;
  bool ok() const { return f_ != nullptr; }
  void write(const std::string& line) {
    std::lock_guard lock(mu_);
    std::fputs(line.c_str(), f_);
    std::fflush(f_);
  }

 private:
  std::FILE* f_;
  std::mutex mu_;
};

}  // namespace rmq::bench
