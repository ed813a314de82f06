// `rmqbench topics`: topic creation against a running broker, as an operator's script does it:
// UPDATE_AND_CREATE_TOPIC one after another on one connection (the broker answers once the name
// servers know the topic), printing the creations/s of every block of --every topics (10,000) and,
// for the block's last topic, how long the name server took to route it after the answer.
// The rate should stay flat as the table grows (issue 25: it fell from 301/s to 42/s by 12,000).
#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

#include "client/admin/admin_client.h"
#include "common/wall_clock.h"
#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
namespace {

using Clock = std::chrono::steady_clock;

double millisSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Polls the name server until `topic` has a route (bounded): the milliseconds it took, or -1.
double routeDelayMillis(client::AdminClient& admin, const std::string& topic) {
  auto start = Clock::now();
  while (millisSince(start) < 5000) {
    auto route = admin.run(admin.asyncTopicRoute(topic));
    if (route.ok() && !route->queueDatas.empty()) return millisSince(start);
    ::usleep(1000);
  }
  return -1;
}

int runTopics(OptionValues& args) {
  client::ClientConfig config;
  config.namesrvAddr = args.get({"n"}, "");
  std::string broker = args.get({"b"}, "");
  int64_t count = args.getInt({"count"}, 100000);
  int64_t every = args.getInt({"every"}, 10000);
  int32_t queues = static_cast<int32_t>(args.getInt({"q"}, 8));
  std::string prefix = args.get({"prefix"}, fmt::format("BenchTopic{}_", ::getpid()));
  if (config.namesrvAddr.empty() || broker.empty() || count < 1 || every < 1 || queues < 1)
    args.addError("-n and -b are required; --count, --every and -q must be positive");
  if (!args.errors().empty()) return 2;

  client::AdminClient admin(config);
  if (auto r = admin.start(); !r) {
    std::fprintf(stderr, "rmqbench topics: %s\n", r.error().message.c_str());
    return 1;
  }
  std::printf("topics: %lld creations on %s (name servers %s), %d queues each, one connection\n",
              static_cast<long long>(count), broker.c_str(), config.namesrvAddr.c_str(), queues);
  auto begin = Clock::now();
  auto blockStart = begin;
  int64_t failures = 0;
  for (int64_t i = 1; i <= count; ++i) {
    client::TopicConfigSpec spec;
    spec.topicName = fmt::format("{}{:06}", prefix, i);
    spec.readQueueNums = spec.writeQueueNums = queues;
    auto created = admin.run(admin.asyncCreateTopicOnBroker(broker, spec));
    if (!created) {
      if (++failures <= 3) std::fprintf(stderr, "create %s: %s\n", spec.topicName.c_str(), created.error().message.c_str());
      continue;
    }
    if (i % every != 0 && i != count) continue;
    double blockMs = millisSince(blockStart);
    int64_t inBlock = i % every == 0 ? every : i % every;
    double routed = routeDelayMillis(admin, spec.topicName);
    std::printf("topics %7lld..%-7lld %8.0f creations/s, last one routed by the name server %s\n",
                static_cast<long long>(i - inBlock + 1), static_cast<long long>(i), inBlock * 1000.0 / blockMs,
                routed < 0 ? "NOT within 5 s" : fmt::format("{:.1f} ms after its answer", routed).c_str());
    std::fflush(stdout);
    blockStart = Clock::now();
  }
  double totalMs = millisSince(begin);
  std::printf("total: %lld topics in %.1f s, %.0f creations/s, %lld failed\n", static_cast<long long>(count),
              totalMs / 1000, count * 1000.0 / totalMs, static_cast<long long>(failures));
  admin.shutdown();
  return failures == 0 ? 0 : 1;
}

Registrar registrar("topics", "broker: UPDATE_AND_CREATE_TOPIC creations/s per block as the topic table grows",
                    {namesrvOption(),
                     {"-b <addr>", "broker address host:port (required)"},
                     {"--count <n>", "topics to create (default 100000)", kInteger},
                     {"--every <n>", "report every n topics (default 10000)", kInteger},
                     {"-q <queues>", "read/write queues per topic (default 8)", kInteger},
                     {"--prefix <name>", "topic name prefix (default BenchTopic<pid>_)"}},
                    &runTopics);

}  // namespace
}  // namespace rmq::bench
