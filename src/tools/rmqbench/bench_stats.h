#pragma once
// Measurement shared by every rmqbench subcommand: a lock-free latency histogram, a meter
// (successes, failures, one or more latency series) and a reporter thread printing one line
// (or JSON object) per second and a summary at the end. Recording is wait-free (relaxed atomics),
// so any number of I/O threads may record while the reporter reads.
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rmq::bench {

struct LatencySummary {
  uint64_t count = 0;
  double avgUs = 0;
  uint64_t p50Us = 0, p99Us = 0, p999Us = 0, maxUs = 0;
};

// Log-linear buckets over microseconds: 32 sub-buckets per power of two (relative error < 3.2%),
// values up to ~2^40 us. Two views: since start (total) and since the last takeInterval().
class LatencyHistogram {
 public:
  static constexpr int kSubBits = 5;
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kBuckets = (40 - kSubBits + 1) * kSub;

  void record(uint64_t micros);
  LatencySummary total() const;
  LatencySummary takeInterval();  // summary since the previous call; resets the interval

 private:
  struct Counts {
    std::array<std::atomic<uint64_t>, kBuckets> buckets{};
    std::atomic<uint64_t> count{0}, sum{0}, max{0};
  };
  static int bucketOf(uint64_t v);
  static uint64_t bucketUpper(int b);  // largest value the bucket holds
  static void add(Counts& c, int bucket, uint64_t v);
  struct Snapshot {
    std::array<uint64_t, kBuckets> buckets{};
    uint64_t count = 0, sum = 0, max = 0;
  };
  static LatencySummary summarize(const Snapshot& c);
  Counts total_, interval_;
};

// Counters and latency series of one benchmark (names like "send", "born", "store").
class BenchMeter {
 public:
  BenchMeter(std::string op, std::vector<std::string> latencyNames);
  void success(uint64_t n = 1) { ok_.fetch_add(n, std::memory_order_relaxed); }
  void failure(uint64_t n = 1) { failed_.fetch_add(n, std::memory_order_relaxed); }
  LatencyHistogram& latency(size_t i = 0) { return *latencies_[i]; }
  uint64_t ok() const { return ok_.load(std::memory_order_relaxed); }
  uint64_t failed() const { return failed_.load(std::memory_order_relaxed); }
  const std::string& op() const { return op_; }
  const std::vector<std::string>& latencyNames() const { return names_; }
  // Why an operation failed (a status name, an error message), counted for the summary line.
  // Failures only, so the lock is off the hot path; at most kReasons distinct texts, then "other".
  void noteFailure(std::string_view reason);
  std::vector<std::pair<std::string, uint64_t>> failureReasons() const;  // most frequent first
  static constexpr size_t kReasons = 8;

 private:
  std::string op_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<LatencyHistogram>> latencies_;
  std::atomic<uint64_t> ok_{0}, failed_{0};
  mutable std::mutex reasonsMu_;
  std::map<std::string, uint64_t, std::less<>> reasons_;  // guarded by reasonsMu_
};

// Prints `meter` every second from its own thread until stop(); stop() prints the summary:
//   text: "[   3s] send TPS 15234 | send ms avg 1.02 p50 0.95 p99 2.31 p999 5.12 max 8.40 | failures 0"
//         "SUMMARY send: ok 45678 failed 0 in 3.00 s, TPS 15226 | send ms avg ..."
//   json: {"type":"interval","t":3,"op":"send","tps":15234,"ok":..,"failed":..,"send":{"avg_ms":..}}
//         {"type":"summary",...}
// `extra` (key/value pairs) goes into the summary (e.g. body size, threads, mode).
class BenchReporter {
 public:
  BenchReporter(BenchMeter& meter, bool json);
  ~BenchReporter();
  void start();
  void stop(const std::vector<std::pair<std::string, std::string>>& extra = {});
  double elapsedSeconds() const;

 private:
  void run();
  void printInterval(int second, uint64_t ok, uint64_t failed, double seconds);
  std::string latencyText(const std::string& name, const LatencySummary& s) const;
  std::string latencyJson(const std::string& name, const LatencySummary& s) const;

  BenchMeter& meter_;
  bool json_;
  std::chrono::steady_clock::time_point start_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool started_ = false;
};

// Steady-clock microseconds since an arbitrary epoch (for latency measurement).
inline uint64_t nowMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace rmq::bench
