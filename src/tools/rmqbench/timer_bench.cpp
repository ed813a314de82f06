// `rmqbench timer-lag`: delivery lag of timer messages (e.g. sent by `rmqbench producer
// --timer-ms M`): pulls every queue of --topic from offset 0 until -c timer messages (those with
// TIMER_OUT_MS) are there or --timeout passes, then prints how many arrived, duplicates (by
// UNIQ_KEY), and the lag store time - TIMER_OUT_MS (p50 / p99 / max, ms). Exit 1 when fewer
// than -c arrived.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <map>
#include <thread>
#include <unistd.h>

#include "common/timer_properties.h"
#include "client/consumer/pull_consumer.h"
#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
namespace {

struct LagScan {
  std::map<std::string, int64_t> lagByKey;  // first copy's lag
  int64_t copies = 0;
};

// One pass over every queue from offset 0.
Result<LagScan> scan(client::PullConsumer& pc, const std::string& topic) {
  auto queues = pc.fetchSubscribeMessageQueues(topic);
  if (!queues) return queues.error();
  LagScan s;
  for (const auto& mq : *queues) {
    for (int64_t offset = 0;;) {
      auto r = pc.pull(mq, "*", offset, 32);
      if (!r) return r.error();
      if (r->status != client::PullStatus::FOUND) break;
      for (const auto& m : r->messages) {
        auto* out = m.property(prop::TIMER_OUT_MS);
        auto* uniq = m.property(prop::UNIQ_KEY);
        if (!out || !uniq) continue;
        ++s.copies;
        s.lagByKey.emplace(*uniq, m.storeTimestamp - std::stoll(*out));
      }
      offset = r->nextBeginOffset;
    }
  }
  return s;
}

int runTimerLag(OptionValues& args) {
  client::PullConsumerOptions po;
  po.client.namesrvAddr = args.get({"n"}, "");
  po.client.instanceName = fmt::format("bench-timer-{}", ::getpid());
  po.group = args.get({"group"}, "benchmark_timer_lag");
  std::string topic = args.get({"topic"}, "BenchmarkTest");
  int64_t expected = args.getInt({"c"}, 0);
  double timeout = args.getDouble({"timeout"}, 120);
  if (expected < 1) args.addError("give the number of timer messages to wait for (-c)");
  if (!args.errors().empty()) return 2;
  client::PullConsumer pc(po);
  if (auto r = pc.start(); !r) {
    std::fprintf(stderr, "rmqbench timer-lag: start failed: %s\n", r.error().message.c_str());
    return 1;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  LagScan s;
  for (;;) {
    auto r = scan(pc, topic);
    if (!r) {
      std::fprintf(stderr, "rmqbench timer-lag: %s\n", r.error().message.c_str());
      return 1;
    }
    s = std::move(*r);
    if (int64_t(s.lagByKey.size()) >= expected || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  pc.shutdown();
  std::vector<int64_t> lags;
  for (auto& [k, lag] : s.lagByKey) lags.push_back(lag);
  std::sort(lags.begin(), lags.end());
  auto at = [&](double q) { return lags.empty() ? 0 : lags[std::min(lags.size() - 1, size_t(double(lags.size()) * q))]; };
  std::printf("timer-lag: topic %s, delivered %zu of %lld, duplicates %lld, lag ms min %lld p50 %lld p99 %lld max %lld\n",
              topic.c_str(), lags.size(), static_cast<long long>(expected),
              static_cast<long long>(s.copies - int64_t(lags.size())), static_cast<long long>(lags.empty() ? 0 : lags.front()),
              static_cast<long long>(at(0.5)), static_cast<long long>(at(0.99)),
              static_cast<long long>(lags.empty() ? 0 : lags.back()));
  return int64_t(lags.size()) >= expected ? 0 : 1;
}

Registrar registrar("timer-lag", "delivery lag of timer messages on a topic (after `producer --timer-ms`)",
                    {namesrvOption(),
                     {"--topic <topic>", "default BenchmarkTest"},
                     {"-c <count>", "timer messages to wait for", kInteger},
                     {"--timeout <s>", "give up after this many seconds (default 120)", kNumber},
                     {"--group <group>", "default benchmark_timer_lag"}},
                    &runTimerLag);

}  // namespace
}  // namespace rmq::bench
