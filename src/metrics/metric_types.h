#pragma once
// Counter, Gauge, Histogram: lock-free instruments for the hot path (relaxed atomics; no lock,
// no allocation per update). Scrapes read them with snapshot()/value() from any thread.
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace rmq::metrics {

class Counter {
 public:
  void inc(uint64_t n = 1) { v_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> v_{0};
};

class Gauge {
 public:
  void set(int64_t v) { v_.store(v, std::memory_order_relaxed); }
  void add(int64_t n) { v_.fetch_add(n, std::memory_order_relaxed); }
  int64_t value() const { return v_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> v_{0};
};

// Fixed upper bounds (ascending, +Inf implied). observe() bumps one bucket (non-cumulative
// internally); snapshot() returns Prometheus' cumulative counts, count = the +Inf bucket.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upperBounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  void observe(double value);

  struct Snapshot {
    std::vector<double> upperBounds;   // without +Inf
    std::vector<uint64_t> cumulative;  // one per bound, then +Inf (= count)
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot snapshot() const;
  const std::vector<double>& upperBounds() const { return bounds_; }

  // Latency buckets in seconds: 100 µs .. 30 s (long polls park up to ~15 s).
  static std::vector<double> latencySeconds();
  // Disk-flush buckets in seconds: 10 µs .. 5 s (an msync of a page cache's worth of dirty data).
  static std::vector<double> flushSeconds();
  // Powers of two 1 .. 1024: how many requests one batch (a group commit) completed.
  static std::vector<double> batchSizes();

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1
  std::atomic<double> sum_{0};
};

// The q-quantile (0 < q < 1) estimated from a histogram's cumulative buckets, as Prometheus'
// histogram_quantile: linear inside the bucket that holds it (from 0 for the first bucket); the
// highest finite bound when it falls in +Inf; 0 for an empty histogram.
double quantile(const Histogram::Snapshot& s, double q);

}  // namespace rmq::metrics
