#pragma once
// Closed-loop load driver shared by the producer and echo benchmarks: `workers` coroutines, worker
// i on the io_context contextFor(i), each awaiting one operation at a time until the duration
// passes or `count` operations were started. Latency of each operation goes to meter.latency(0).
// runLoad() blocks the calling thread (never one of those io threads) until every worker ended.
#include <asio/awaitable.hpp>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>

#include <asio/io_context.hpp>
#include <string>
#include <vector>
#include "tools/rmqbench/bench_registry.h"
#include "tools/rmqbench/bench_stats.h"

namespace rmq::bench {

struct LoadOptions {
  int workers = 1;
  double seconds = 10;  // 0 = until `count`
  int64_t count = 0;    // 0 = until `seconds`
  double rate = 0;      // total operations per second, paced over the workers; 0 = as fast as possible
};

// One operation of worker `worker`: true = success. Exceptions count as failures.
using LoadOp = std::function<asio::awaitable<bool>(int worker)>;

using ContextFor = std::function<asio::io_context&(int worker)>;

void runLoad(const ContextFor& contextFor, const LoadOptions& options, BenchMeter& meter, LoadOp op);

// Ticket dispenser for loads that are not closed-loop coroutines (callback chains, threads): true
// while the duration has not passed and fewer than `count` tickets were taken.
class LoadBudget {
 public:
  explicit LoadBudget(const LoadOptions& options);
  bool take();

 private:
  LoadOptions options_;
  std::chrono::steady_clock::time_point deadline_;
  std::atomic<int64_t> taken_{0};
};

// "10 s" / "1000 ops" / "1000 ops or 10 s", for the header line.
std::string describeLoad(const LoadOptions& options);

// The command line of a load: "-t <workers>" (`workersText`), "-d <seconds>" (default 10 unless
// -c), "-c <count>" (stop after this many `what`).
std::vector<OptionSpec> loadOptionSpecs(const char* workersText, const char* what);
// LoadOptions from -t (default 1), -c and -d; records a problem in args when -t < 1 or when
// neither -d nor -c gives an end.
LoadOptions readLoad(OptionValues& args);

}  // namespace rmq::bench
