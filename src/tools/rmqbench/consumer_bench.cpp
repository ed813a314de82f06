// `rmqbench consumer`: a push consumer (our client library) measuring consume TPS and two
// latencies per message: born-to-consume (producer's born timestamp -> listener) and
// store-to-consume (broker's store timestamp -> listener; with a slow producer this is the
// long-poll wake-up path). --fail-rate makes that share of deliveries answer RECONSUME_LATER, so
// the retry path (%RETRY% topic, delay levels) is exercised and counted as failures.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fmt/format.h>
#include <mutex>
#include <random>
#include <unistd.h>

#include "client/consumer/push_consumer.h"
#include "tools/rmqbench/bench_registry.h"
#include "tools/rmqbench/bench_stats.h"

namespace rmq::bench {
namespace {

// Wall clock in microseconds since the Unix epoch (messages carry millisecond timestamps).
int64_t wallMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

uint64_t sinceMillis(int64_t nowUs, int64_t thenMs) {
  int64_t d = nowUs - thenMs * 1000;
  return d > 0 ? static_cast<uint64_t>(d) : 0;
}

int runConsumer(OptionValues& args) {
  client::PushConsumerOptions po;
  po.client.namesrvAddr = args.get({"n"}, "");
  po.client.instanceName = fmt::format("bench-consumer-{}", ::getpid());
  po.group = args.get({"group"}, "benchmark_consumer");
  std::string topic = args.get({"topic"}, "BenchmarkTest");
  std::string from = args.get({"from"}, "last");
  double failRate = args.getDouble({"fail-rate"}, 0);
  po.consumeThreadMin = po.consumeThreadMax = static_cast<int>(args.getInt({"threads"}, 20));
  int64_t count = args.getInt({"c"}, 0);
  double seconds = args.getDouble({"d"}, count > 0 ? 0 : 10);
  bool json = args.flag("json");
  if (failRate < 0 || failRate > 1) args.addError("--fail-rate is between 0 and 1");
  if (seconds <= 0 && count <= 0) args.addError("give a duration (-d) or a count (-c)");
  if (po.consumeThreadMin < 1) args.addError("--threads must be >= 1");
  if (args.has("expr") && args.has("sql")) args.addError("--expr and --sql exclude each other");
  if (!args.errors().empty()) return 2;
  po.consumeFromWhere = from == "first" ? client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET
                                        : client::ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;

  client::PushConsumer consumer(po);
  auto sub = args.has("sql") ? consumer.subscribe(topic, args.get({"sql"}, ""), filter::ExpressionType::Sql92)
                             : consumer.subscribe(topic, args.get({"expr"}, "*"));
  if (!sub) {
    std::fprintf(stderr, "rmqbench consumer: subscribe: %s\n", sub.error().message.c_str());
    return 2;
  }
  BenchMeter meter("consume", {"born", "store"});
  std::mutex mu;
  std::condition_variable cv;
  consumer.registerListener([&](const std::vector<MessageExt>& msgs, const client::MessageQueue&) {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    int64_t now = wallMicros();
    for (auto& m : msgs) {
      meter.latency(0).record(sinceMillis(now, m.bornTimestamp));
      meter.latency(1).record(sinceMillis(now, m.storeTimestamp));
    }
    if (failRate > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < failRate) {
      meter.failure(msgs.size());
      return client::ConsumeStatus::RECONSUME_LATER;
    }
    meter.success(msgs.size());
    if (count > 0 && meter.ok() >= static_cast<uint64_t>(count)) cv.notify_all();
    return client::ConsumeStatus::CONSUME_SUCCESS;
  });
  if (auto r = consumer.start(); !r) {
    std::fprintf(stderr, "rmqbench consumer: start failed: %s\n", r.error().message.c_str());
    return 1;
  }
  if (!json)
    std::printf("consumer: topic %s, group %s, %s, from %s, fail rate %.3f, %d threads, %s\n", topic.c_str(),
                po.group.c_str(), args.has("sql") ? ("sql " + args.get({"sql"}, "")).c_str()
                                                  : ("expr " + args.get({"expr"}, "*")).c_str(),
                from.c_str(), failRate, po.consumeThreadMin,
                count > 0 ? fmt::format("until {} consumed", count).c_str() : fmt::format("{} s", seconds).c_str());
  BenchReporter reporter(meter, json);
  reporter.start();
  {
    // Re-checked every 100 ms too, so a notify racing with the wait cannot be lost.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
    auto done = [&] { return count > 0 && meter.ok() >= static_cast<uint64_t>(count); };
    std::unique_lock lk(mu);
    while (!done() && (seconds <= 0 || std::chrono::steady_clock::now() < deadline))
      cv.wait_for(lk, std::chrono::milliseconds(100), done);
  }
  reporter.stop({{"group", po.group}, {"topic", topic}, {"fail_rate", fmt::format("{:.3f}", failRate)}});
  consumer.shutdown();
  return meter.ok() > 0 ? 0 : 1;
}

Registrar registrar("consumer", "push consumer: consume TPS, born/store-to-consume latency, optional failures",
                    {namesrvOption(),
                     {"--topic <topic>", "default BenchmarkTest"},
                     {"--group <group>", "default benchmark_consumer"},
                     {"--expr <tags>", "tag expression (default *)"},
                     {"--sql <expr>", "SQL92 filter instead of --expr"},
                     {"--from <where>", "last (default) or first", tools::ValueKind::Text, {"last", "first"}},
                     {"--fail-rate <share>", "answer RECONSUME_LATER for this share, 0..1 (default 0)", kNumber},
                     {"--threads <n>", "consume threads (default 20)", kInteger},
                     {"-d <seconds>", "duration (default 10 unless -c)", kNumber},
                     {"-c <count>", "stop after this many consumed", kInteger},
                     jsonOption()},
                    &runConsumer);

}  // namespace
}  // namespace rmq::bench
