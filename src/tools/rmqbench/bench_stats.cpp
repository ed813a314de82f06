#include "tools/rmqbench/bench_stats.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>

#include "common/atomic_max.h"
#include "common/json.h"

namespace rmq::bench {

// ---- LatencyHistogram ------------------------------------------------------------------------

int LatencyHistogram::bucketOf(uint64_t v) {
  if (v < static_cast<uint64_t>(kSub)) return static_cast<int>(v);  // exact below 32 us
  int msb = 63 - std::countl_zero(v);                               // >= kSubBits
  int shift = msb - kSubBits;
  int b = (shift + 1) * kSub + static_cast<int>((v >> shift) - kSub);
  return b < kBuckets ? b : kBuckets - 1;
}

uint64_t LatencyHistogram::bucketUpper(int b) {
  if (b < kSub) return static_cast<uint64_t>(b);
  int shift = b / kSub - 1;
  uint64_t base = static_cast<uint64_t>(kSub + b % kSub) << shift;
  return base + ((uint64_t{1} << shift) - 1);
}

void LatencyHistogram::add(Counts& c, int bucket, uint64_t v) {
  c.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  c.count.fetch_add(1, std::memory_order_relaxed);
  c.sum.fetch_add(v, std::memory_order_relaxed);
  atomicRaise(c.max, v, std::memory_order_relaxed);
}

void LatencyHistogram::record(uint64_t micros) {
  int b = bucketOf(micros);
  add(total_, b, micros);
  add(interval_, b, micros);
}

LatencySummary LatencyHistogram::summarize(const Snapshot& c) {
  LatencySummary s;
  for (uint64_t b : c.buckets) s.count += b;
  if (s.count == 0) return s;
  const uint64_t n = s.count;
  s.avgUs = static_cast<double>(c.sum) / static_cast<double>(c.count ? c.count : n);
  s.maxUs = c.max;
  // Nearest rank: the ceil(q*n)-th smallest sample (0-based index ceil(q*n)-1).
  auto rankOf = [n](double q) {
    auto r = static_cast<uint64_t>(std::ceil(q * static_cast<double>(n)));
    return r == 0 ? 0 : (r > n ? n - 1 : r - 1);
  };
  const uint64_t ranks[3] = {rankOf(0.50), rankOf(0.99), rankOf(0.999)};
  uint64_t* outs[3] = {&s.p50Us, &s.p99Us, &s.p999Us};
  uint64_t seen = 0;
  int next = 0;
  for (int i = 0; i < kBuckets && next < 3; ++i) {
    seen += c.buckets[i];
    // The last bucket also holds everything beyond the range: report the max seen there.
    while (next < 3 && seen > ranks[next]) *outs[next++] = i == kBuckets - 1 ? s.maxUs : std::min(bucketUpper(i), s.maxUs);
  }
  return s;
}

LatencySummary LatencyHistogram::total() const {
  auto snap = std::make_unique<Snapshot>();
  for (int i = 0; i < kBuckets; ++i) snap->buckets[i] = total_.buckets[i].load(std::memory_order_relaxed);
  snap->count = total_.count.load(std::memory_order_relaxed);
  snap->sum = total_.sum.load(std::memory_order_relaxed);
  snap->max = total_.max.load(std::memory_order_relaxed);
  return summarize(*snap);
}

LatencySummary LatencyHistogram::takeInterval() {
  // exchange() per word: a record racing with this call lands in this interval or the next one,
  // never in neither.
  auto snap = std::make_unique<Snapshot>();
  for (int i = 0; i < kBuckets; ++i) snap->buckets[i] = interval_.buckets[i].exchange(0, std::memory_order_relaxed);
  snap->count = interval_.count.exchange(0, std::memory_order_relaxed);
  snap->sum = interval_.sum.exchange(0, std::memory_order_relaxed);
  snap->max = interval_.max.exchange(0, std::memory_order_relaxed);
  return summarize(*snap);
}

// ---- BenchMeter ------------------------------------------------------------------------------

BenchMeter::BenchMeter(std::string op, std::vector<std::string> latencyNames)
    : op_(std::move(op)), names_(std::move(latencyNames)) {
  for (size_t i = 0; i < names_.size(); ++i) latencies_.push_back(std::make_unique<LatencyHistogram>());
}

void BenchMeter::noteFailure(std::string_view reason) {
  std::lock_guard lk(reasonsMu_);
  auto it = reasons_.find(reason);
  if (it == reasons_.end()) {
    if (reasons_.size() >= kReasons) reason = "other";
    it = reasons_.try_emplace(std::string(reason), 0).first;
  }
  ++it->second;
}

std::vector<std::pair<std::string, uint64_t>> BenchMeter::failureReasons() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  {
    std::lock_guard lk(reasonsMu_);
    out.assign(reasons_.begin(), reasons_.end());
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

// ---- BenchReporter ---------------------------------------------------------------------------

BenchReporter::BenchReporter(BenchMeter& meter, bool json) : meter_(meter), json_(json) {}

BenchReporter::~BenchReporter() {
  if (thread_.joinable()) {
    { std::lock_guard lk(mu_); stopping_ = true; }
    cv_.notify_all();
    thread_.join();
  }
}

void BenchReporter::start() {
  start_ = std::chrono::steady_clock::now();
  started_ = true;
  thread_ = std::thread([this] { run(); });
}

double BenchReporter::elapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void BenchReporter::run() {
  uint64_t lastOk = 0, lastFailed = 0;
  auto lastT = start_;
  for (int second = 1;; ++second) {
    std::unique_lock lk(mu_);
    if (cv_.wait_until(lk, start_ + std::chrono::seconds(second), [this] { return stopping_; })) return;
    lk.unlock();
    auto now = std::chrono::steady_clock::now();
    uint64_t ok = meter_.ok(), failed = meter_.failed();
    printInterval(second, ok - lastOk, failed - lastFailed, std::chrono::duration<double>(now - lastT).count());
    lastOk = ok;
    lastFailed = failed;
    lastT = now;
  }
}

std::string BenchReporter::latencyText(const std::string& name, const LatencySummary& s) const {
  return fmt::format("{} ms avg {:.3f} p50 {:.3f} p99 {:.3f} p999 {:.3f} max {:.3f}", name, s.avgUs / 1000.0,
                     s.p50Us / 1000.0, s.p99Us / 1000.0, s.p999Us / 1000.0, s.maxUs / 1000.0);
}

std::string BenchReporter::latencyJson(const std::string& name, const LatencySummary& s) const {
  return fmt::format(R"("{}":{{"count":{},"avg_ms":{:.3f},"p50_ms":{:.3f},"p99_ms":{:.3f},"p999_ms":{:.3f},"max_ms":{:.3f}}})",
                     name, s.count, s.avgUs / 1000.0, s.p50Us / 1000.0, s.p99Us / 1000.0, s.p999Us / 1000.0,
                     s.maxUs / 1000.0);
}

void BenchReporter::printInterval(int second, uint64_t ok, uint64_t failed, double seconds) {
  double tps = seconds > 0 ? static_cast<double>(ok) / seconds : 0;
  std::string line;
  auto& names = meter_.latencyNames();
  if (json_) {
    line = fmt::format(R"({{"type":"interval","t":{},"op":"{}","tps":{:.1f},"ok":{},"failed":{})", second,
                       meter_.op(), tps, ok, failed);
    for (size_t i = 0; i < names.size(); ++i) line += "," + latencyJson(names[i], meter_.latency(i).takeInterval());
    line += "}";
  } else {
    line = fmt::format("[{:4d}s] {} TPS {:.0f}", second, meter_.op(), tps);
    for (size_t i = 0; i < names.size(); ++i) line += " | " + latencyText(names[i], meter_.latency(i).takeInterval());
    line += fmt::format(" | failures {}", failed);
  }
  std::fprintf(stdout, "%s\n", line.c_str());
  std::fflush(stdout);
}

void BenchReporter::stop(const std::vector<std::pair<std::string, std::string>>& extra) {
  double secs = elapsedSeconds();
  if (thread_.joinable()) {
    { std::lock_guard lk(mu_); stopping_ = true; }
    cv_.notify_all();
    thread_.join();
  }
  uint64_t ok = meter_.ok(), failed = meter_.failed();
  double tps = secs > 0 ? static_cast<double>(ok) / secs : 0;
  auto& names = meter_.latencyNames();
  std::string line;
  if (json_) {
    line = fmt::format(R"({{"type":"summary","op":"{}","seconds":{:.3f},"ok":{},"failed":{},"tps":{:.1f})",
                       meter_.op(), secs, ok, failed, tps);
    for (size_t i = 0; i < names.size(); ++i) line += "," + latencyJson(names[i], meter_.latency(i).total());
    for (auto& [k, v] : extra) line += fmt::format(R"(,"{}":"{}")", k, v);
    std::string reasons;
    for (auto& [why, n] : meter_.failureReasons()) {
      if (!reasons.empty()) reasons += ",";
      json::appendQuoted(reasons, why);
      reasons += fmt::format(":{}", n);
    }
    if (!reasons.empty()) line += R"(,"failure_reasons":{)" + reasons + "}";
    line += "}";
  } else {
    line = fmt::format("SUMMARY {}: ok {} failed {} in {:.2f} s, TPS {:.0f}", meter_.op(), ok, failed, secs, tps);
    for (size_t i = 0; i < names.size(); ++i) line += " | " + latencyText(names[i], meter_.latency(i).total());
    for (auto& [k, v] : extra) line += fmt::format(" | {} {}", k, v);
    std::string reasons;
    for (auto& [why, n] : meter_.failureReasons()) reasons += fmt::format("{}{} x{}", reasons.empty() ? "" : "; ", why, n);
    if (!reasons.empty()) line += " | failures by reason: " + reasons;
  }
  std::fprintf(stdout, "%s\n", line.c_str());
  std::fflush(stdout);
}

}  // namespace rmq::bench
