#include "metrics/metric_types.h"

#include <algorithm>

namespace rmq::metrics {

Histogram::Histogram(std::vector<double> upperBounds)
    : bounds_(std::move(upperBounds)), buckets_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  std::sort(bounds_.begin(), bounds_.end());
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double value) {
  // First bound >= value (Prometheus buckets are "le"); past the end = +Inf.
  size_t i = static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  buckets_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.upperBounds = bounds_;
  s.cumulative.resize(bounds_.size() + 1);
  uint64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative[i] = running;
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

std::vector<double> Histogram::latencySeconds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30};
}

std::vector<double> Histogram::flushSeconds() {
  return {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
          0.5, 1, 2.5, 5};
}

std::vector<double> Histogram::batchSizes() { return {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}; }

double quantile(const Histogram::Snapshot& s, double q) {
  if (s.count == 0 || s.upperBounds.empty()) return 0;
  double rank = q * static_cast<double>(s.count);
  for (size_t i = 0; i < s.upperBounds.size(); ++i) {
    if (static_cast<double>(s.cumulative[i]) < rank) continue;
    double lower = i == 0 ? 0 : s.upperBounds[i - 1];
    uint64_t below = i == 0 ? 0 : s.cumulative[i - 1];
    uint64_t inBucket = s.cumulative[i] - below;
    if (inBucket == 0) return s.upperBounds[i];
    return lower + (s.upperBounds[i] - lower) * (rank - static_cast<double>(below)) / static_cast<double>(inBucket);
  }
  return s.upperBounds.back();
}

}  // namespace rmq::metrics
