#include "tools/rmqbench/bench_driver.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <optional>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fmt/format.h>
#include <mutex>

namespace rmq::bench {
namespace {

struct LoadState {
  LoadState(const LoadOptions& o, BenchMeter& m, LoadOp f)
      : budget(o), meter(m), op(std::move(f)), rate(o.rate), workers(o.workers) {}
  LoadBudget budget;
  BenchMeter& meter;
  LoadOp op;
  std::mutex mu;
  std::condition_variable cv;
  int running = 0;
  double rate;
  int workers;

  bool takeTicket() { return budget.take(); }
  void workerDone() {
    std::lock_guard lk(mu);
    if (--running == 0) cv.notify_all();
  }
};

asio::awaitable<void> worker(LoadState& s, int index) {
  // With a rate, worker i starts its k-th operation at start + (i / workers + k) * interval.
  std::optional<asio::steady_timer> pace;
  std::chrono::nanoseconds interval{0};
  auto next = std::chrono::steady_clock::now();
  if (s.rate > 0) {
    pace.emplace(co_await asio::this_coro::executor);
    interval = std::chrono::nanoseconds(static_cast<int64_t>(1e9 * s.workers / s.rate));
    next += interval * index / s.workers;
  }
  while (s.takeTicket()) {
    if (pace) {
      pace->expires_at(next);
      co_await pace->async_wait(asio::experimental::as_tuple(asio::use_awaitable));
      next += interval;
    }
    uint64_t t0 = nowMicros();
    bool ok = false;
    try {
      ok = co_await s.op(index);
    } catch (const std::exception&) {
      ok = false;
    }
    s.meter.latency(0).record(nowMicros() - t0);
    if (ok) s.meter.success();
    else s.meter.failure();
  }
  s.workerDone();
}

}  // namespace

LoadBudget::LoadBudget(const LoadOptions& options)
    : options_(options),
      deadline_(std::chrono::steady_clock::now() +
                std::chrono::microseconds(static_cast<int64_t>(options.seconds * 1e6))) {}

bool LoadBudget::take() {
  if (options_.seconds > 0 && std::chrono::steady_clock::now() >= deadline_) return false;
  if (options_.count > 0 && taken_.fetch_add(1, std::memory_order_relaxed) >= options_.count) return false;
  return true;
}

void runLoad(const ContextFor& contextFor, const LoadOptions& options, BenchMeter& meter, LoadOp op) {
  LoadState s(options, meter, std::move(op));
  s.running = options.workers;
  for (int i = 0; i < options.workers; ++i) asio::co_spawn(contextFor(i), worker(s, i), asio::detached);
  std::unique_lock lk(s.mu);
  s.cv.wait(lk, [&] { return s.running == 0; });
}

std::string describeLoad(const LoadOptions& o) {
  if (o.count > 0 && o.seconds > 0) return fmt::format("{} ops or {} s", o.count, o.seconds);
  if (o.count > 0) return fmt::format("{} ops", o.count);
  return fmt::format("{} s", o.seconds);
}

std::vector<OptionSpec> loadOptionSpecs(const char* workersText, const char* what) {
  return {{"-t <workers>", workersText, kInteger},
          {"-d <seconds>", "duration (default 10 unless -c)", kNumber},
          {"-c <count>", std::string("stop after this many ") + what, kInteger}};
}

LoadOptions readLoad(OptionValues& args) {
  LoadOptions load;
  load.workers = static_cast<int>(args.getInt({"t"}, 1));
  load.count = args.getInt({"c"}, 0);
  load.seconds = args.getDouble({"d"}, load.count > 0 ? 0 : 10);
  if (load.workers < 1) args.addError("-t must be >= 1");
  if (load.seconds <= 0 && load.count <= 0) args.addError("give a duration (-d) or a count (-c)");
  return load;
}

}  // namespace rmq::bench
