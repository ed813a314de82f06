// `rmqbench pop-consumer`: a RocketMQ 5.x SimpleConsumer's load over gRPC (pop_client.h) against a
// broker's grpcServerPort. -t workers spread over --connections HTTP/2 connections (one io thread
// each), each one receive (ReceiveMessage, --batch, --invisible, --poll) then one AckMessage for
// the batch, in a loop. Prints received+acked messages per second and in total, the receive and
// ack call latencies, and with --no-ack-every K (every K-th first delivery left un-acked, so it
// comes back) the redelivery delay: the time from the end of its invisible time (its receipt
// handle's pop time + invisible time, broker clock = this box's) to its redelivery here. Compare
// with `rmqbench consumer` (the 4.x push consumer) on the same preloaded topic (issue 21's goal:
// >= 70 %; redelivery p99 <= 1 s).
//
// --park N: memory per parked receive. Opens --connections channels, then N receives long-polling
// an empty topic (re-issued when they end), and prints the broker's RssAnon (--pid) growth per
// parked receive, over the connections alone, as `rmqbench conns --park` does for 4.x pulls.
#include <unistd.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <atomic>
#include <cstdio>
#include <fmt/format.h>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "common/fd_limit.h"
#include "common/wall_clock.h"
#include "net/io_pool.h"
#include "tools/rmqbench/bench_driver.h"
#include "tools/rmqbench/pop_client.h"
#include "tools/rmqbench/proc_status.h"
#include "tools/rmqbench/run_on.h"

namespace rmq::bench {
namespace {

struct PopBenchOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 8081;
  ReceiveSpec receive;
  int connections = 2;
  int64_t noAckEvery = 0;
  int64_t park = 0, pid = 0;
  double settle = 5;
  bool json = false;
  LoadOptions load;
};

bool readOptions(OptionValues& args, PopBenchOptions& o) {
  readGrpcEndpoint(args, o.host, o.port);  // an error is reported with the others below
  o.receive.topic = args.get({"topic"}, "BenchmarkTest");
  o.receive.group = args.get({"group"}, "bench_pop");
  o.receive.batch = static_cast<int>(args.getInt({"batch"}, 32));
  o.receive.invisibleMs = args.getInt({"invisible"}, 30000);
  o.receive.pollMs = args.getInt({"poll"}, 1000);
  o.connections = static_cast<int>(args.getInt({"connections"}, 2));
  o.noAckEvery = args.getInt({"no-ack-every"}, 0);
  o.park = args.getInt({"park"}, 0);
  o.pid = args.getInt({"pid"}, 0);
  o.settle = args.getDouble({"settle"}, 5);
  o.json = args.flag("json");
  o.load = readLoad(args);
  if (o.load.count > 0) args.addError("-c is not supported: give a duration (-d)");
  if (o.receive.batch < 1 || o.receive.batch > 32) args.addError("--batch is 1..32");
  if (o.receive.invisibleMs < 1000) args.addError("--invisible is >= 1000 ms");
  if (o.connections < 1 || o.noAckEvery < 0) args.addError("--connections >= 1, --no-ack-every >= 0");
  if (o.park > 0 && o.pid <= 0) args.addError("--park needs --pid <broker pid>");
  return args.errors().empty();
}

std::string clientId() { return fmt::format("127.0.0.1@{}@0@rmqbench-pop", ::getpid()); }

// Connects `o.connections` channels, one on each io thread; empty on the first failure (printed).
std::vector<std::shared_ptr<PopChannel>> connectAll(net::IoPool& io, const PopBenchOptions& o) {
  std::vector<std::shared_ptr<PopChannel>> channels;
  for (int i = 0; i < o.connections; ++i) {
    auto ch = runOn(io.at(static_cast<size_t>(i) % io.size()), PopChannel::connect(o.host, o.port, clientId()));
    if (!ch) {
      std::fprintf(stderr, "rmqbench pop-consumer: connect %s:%u: %s\n", o.host.c_str(), o.port,
                   ch.error().message.c_str());
      return {};
    }
    channels.push_back(*ch);
  }
  return channels;
}

void closeAll(net::IoPool& io, std::vector<std::shared_ptr<PopChannel>>& channels) {
  for (size_t i = 0; i < channels.size(); ++i) {
    auto closeIt = [](std::shared_ptr<PopChannel> c) -> asio::awaitable<bool> {
      c->close();
      co_return true;
    };
    runOn(io.at(i % io.size()), closeIt(channels[i]));
  }
  channels.clear();
}

// Messages left un-acked on purpose: message id -> when the delivery became due (epoch ms).
class Unacked {
 public:
  void add(const std::string& id, int64_t dueMs) {
    std::lock_guard lk(mu_);
    due_[id] = dueMs;
  }
  // The due moment of `id`'s skipped delivery (and forgets it), -1 if it was not skipped.
  int64_t take(const std::string& id) {
    std::lock_guard lk(mu_);
    auto it = due_.find(id);
    if (it == due_.end()) return -1;
    int64_t due = it->second;
    due_.erase(it);
    return due;
  }
  size_t size() {
    std::lock_guard lk(mu_);
    return due_.size();
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, int64_t> due_;
};

struct ConsumeRun {
  const PopBenchOptions& o;
  std::vector<std::shared_ptr<PopChannel>>& channels;
  BenchMeter& meter;  // success = messages received and acked; latencies: receive, ack, redelivery
  Unacked unacked;
  std::atomic<int64_t> firstDeliveries{0}, redeliveries{0}, early{0}, receiveErrors{0}, ackErrors{0};
  std::atomic<int64_t> skipped{0};

  // Sorts one batch: records redelivery delays, leaves every K-th first delivery un-acked.
  std::vector<const Delivered*> toAck(const std::vector<Delivered>& batch) {
    std::vector<const Delivered*> out;
    int64_t now = nowMillis();
    for (const auto& m : batch) {
      if (m.attempt > 1) {
        redeliveries.fetch_add(1, std::memory_order_relaxed);
        if (int64_t due = unacked.take(m.messageId); due >= 0) {
          if (now < due) early.fetch_add(1, std::memory_order_relaxed);
          meter.latency(2).record(static_cast<uint64_t>(std::max<int64_t>(now - due, 0)) * 1000);
        }
      } else if (o.noAckEvery > 0 && firstDeliveries.fetch_add(1, std::memory_order_relaxed) % o.noAckEvery ==
                                         o.noAckEvery - 1) {
        skipped.fetch_add(1, std::memory_order_relaxed);
        unacked.add(m.messageId, m.dueMs >= 0 ? m.dueMs : now + o.receive.invisibleMs);
        continue;
      }
      out.push_back(&m);
    }
    return out;
  }

  asio::awaitable<bool> cycle(int worker) {
    PopChannel& ch = *channels[static_cast<size_t>(worker) % channels.size()];
    uint64_t t0 = nowMicros();
    ReceiveOutcome r = co_await ch.receive(o.receive);
    meter.latency(0).record(nowMicros() - t0);
    if (!r.transportOk || (r.code != kV2Ok && r.code != kV2MessageNotFound)) {
      receiveErrors.fetch_add(1, std::memory_order_relaxed);
      co_return false;
    }
    auto acks = toAck(r.messages);
    if (acks.empty()) co_return true;
    uint64_t t1 = nowMicros();
    AckOutcome a = co_await ch.ack(o.receive.group, o.receive.topic, acks);
    meter.latency(1).record(nowMicros() - t1);
    int64_t ok = 0;
    for (int c : a.codes) ok += c == kV2Ok;
    meter.success(static_cast<uint64_t>(ok));
    if (ok < static_cast<int64_t>(acks.size())) {
      ackErrors.fetch_add(static_cast<int64_t>(acks.size()) - ok, std::memory_order_relaxed);
      meter.failure(acks.size() - static_cast<uint64_t>(ok));
    }
    co_return a.transportOk;
  }
};

int runConsume(const PopBenchOptions& o) {
  net::IoPool io(static_cast<size_t>(o.connections));
  io.start();
  auto channels = connectAll(io, o);
  if (channels.empty()) return 1;
  if (!o.json)
    std::printf("pop-consumer: %s:%u topic %s, group %s, %d workers, %d connections, batch %d, invisible %lld ms, "
                "poll %lld ms, no-ack every %lld, %s\n",
                o.host.c_str(), o.port, o.receive.topic.c_str(), o.receive.group.c_str(), o.load.workers,
                o.connections, o.receive.batch, static_cast<long long>(o.receive.invisibleMs),
                static_cast<long long>(o.receive.pollMs), static_cast<long long>(o.noAckEvery),
                describeLoad(o.load).c_str());
  BenchMeter meter("receive+ack", {"receive", "ack", "redelivery"});
  BenchMeter cycles("cycle", {"cycle"});  // runLoad's own count (one receive + ack per operation)
  ConsumeRun run{o, channels, meter};
  BenchReporter reporter(meter, o.json);
  reporter.start();
  runLoad([&](int w) -> asio::io_context& { return io.at(static_cast<size_t>(w) % io.size()); }, o.load, cycles,
          [&](int w) { return run.cycle(w); });
  reporter.stop({{"mode", "pop"},
                 {"workers", std::to_string(o.load.workers)},
                 {"connections", std::to_string(o.connections)},
                 {"batch", std::to_string(o.receive.batch)},
                 {"redelivered", std::to_string(run.redeliveries.load())},
                 {"skipped", std::to_string(run.skipped.load())}});
  if (!o.json) {
    auto rd = meter.latency(2).total();
    std::printf("SUMMARY pop redelivery: left un-acked %lld, redelivered %lld (measured %llu, still invisible at the "
                "end %zu), delay after the invisible time ms p50 %.1f p99 %.1f max %.1f, early %lld; receive errors "
                "%lld, ack errors %lld\n",
                static_cast<long long>(run.skipped.load()), static_cast<long long>(run.redeliveries.load()),
                static_cast<unsigned long long>(rd.count), run.unacked.size(), rd.p50Us / 1000.0, rd.p99Us / 1000.0,
                rd.maxUs / 1000.0, static_cast<long long>(run.early.load()),
                static_cast<long long>(run.receiveErrors.load()), static_cast<long long>(run.ackErrors.load()));
  }
  closeAll(io, channels);
  io.stop();
  return meter.ok() > 0 ? 0 : 1;
}

void sleepSeconds(double s) { std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(s * 1000))); }

// One parked receive, re-issued whenever it ends, until `stop`.
asio::awaitable<void> parkLoop(std::shared_ptr<PopChannel> ch, ReceiveSpec spec, std::atomic<bool>& stop,
                               std::atomic<int64_t>& answers, std::atomic<int64_t>& errors) {
  while (!stop.load()) {
    ReceiveOutcome r = co_await ch->receive(spec);
    answers.fetch_add(1);
    if (stop.load()) break;  // the calls the close ended are not errors
    if (!r.transportOk || (r.code != kV2Ok && r.code != kV2MessageNotFound)) {
      errors.fetch_add(1);
      if (!ch->isOpen()) break;
    }
  }
}

int runPark(const PopBenchOptions& o) {
  FdLimit fd = raiseFdLimit();
  if (fd.soft < static_cast<uint64_t>(o.connections) + 64) {
    std::fprintf(stderr, "rmqbench pop-consumer: open-file limit %llu too small\n",
                 static_cast<unsigned long long>(fd.soft));
    return 1;
  }
  int64_t before = rssAnonKiB(o.pid);
  if (before < 0) {
    std::fprintf(stderr, "rmqbench pop-consumer: cannot read /proc/%lld/status\n", static_cast<long long>(o.pid));
    return 1;
  }
  net::IoPool io(std::min<size_t>(static_cast<size_t>(o.connections), 4));
  io.start();
  auto channels = connectAll(io, o);
  if (channels.empty()) return 1;
  sleepSeconds(std::min(o.settle, 3.0));
  int64_t connected = rssAnonKiB(o.pid);
  ReceiveSpec spec = o.receive;
  spec.batch = 1;
  spec.pollMs = 20000;  // the broker's cap: each receive stays parked ~20 s, then is sent again
  std::atomic<bool> stop{false};
  std::atomic<int64_t> answers{0}, errors{0};
  for (int64_t i = 0; i < o.park; ++i) {
    size_t c = static_cast<size_t>(i) % channels.size();
    asio::co_spawn(io.at(c % io.size()), parkLoop(channels[c], spec, stop, answers, errors), asio::detached);
  }
  sleepSeconds(o.settle);
  int64_t parked = rssAnonKiB(o.pid);
  int64_t early = answers.load();
  double perConn = double(connected - before) * 1024 / double(channels.size());
  double perParked = double(parked - connected) * 1024 / double(o.park);
  std::printf("pop-consumer park: %zu connections: RssAnon %lld -> %lld KiB (%.0f B per connection); %lld parked "
              "receives (topic %s) after %.1f s: %lld KiB = %.0f B per parked receive; %lld answers, %lld errors\n",
              channels.size(), static_cast<long long>(before), static_cast<long long>(connected), perConn,
              static_cast<long long>(o.park), o.receive.topic.c_str(), o.settle, static_cast<long long>(parked),
              perParked, static_cast<long long>(early), static_cast<long long>(errors.load()));
  stop = true;
  closeAll(io, channels);
  io.stop();
  sleepSeconds(std::min(o.settle, 3.0));
  int64_t after = rssAnonKiB(o.pid);
  std::printf("SUMMARY pop park %lld over %d connections: RssAnon before %lld KiB, connected %lld, parked %lld, "
              "closed %lld KiB; per parked receive %.0f B (goal <= 8192), per connection %.0f B, answers during the "
              "settle %lld, errors %lld\n",
              static_cast<long long>(o.park), o.connections, static_cast<long long>(before),
              static_cast<long long>(connected), static_cast<long long>(parked), static_cast<long long>(after),
              perParked, perConn, static_cast<long long>(early), static_cast<long long>(errors.load()));
  return errors.load() > 0 ? 1 : 0;
}

int runPopConsumer(OptionValues& args) {
  PopBenchOptions o;
  if (!readOptions(args, o)) return 2;
  return o.park > 0 ? runPark(o) : runConsume(o);
}

std::vector<OptionSpec> popConsumerOptions() {
  auto options = loadOptionSpecs("concurrent receive+ack loops (default 1)", "cycles");
  options.insert(options.end(),
                 {{"--endpoint <host:port>", "the broker's gRPC port (default 127.0.0.1:8081)"},
                  {"--topic <topic>", "default BenchmarkTest"},
                  {"--group <group>", "consumer group (default bench_pop)"},
                  {"--batch <n>", "messages per receive, 1..32 (default 32)", kInteger},
                  {"--invisible <ms>", "invisible duration (default 30000)", kInteger},
                  {"--poll <ms>", "long polling timeout (default 1000)", kInteger},
                  {"--connections <n>", "HTTP/2 connections, one io thread each (default 2)", kInteger},
                  {"--no-ack-every <k>", "leave every k-th first delivery un-acked (it comes back; 0 = ack all)",
                   kInteger},
                  {"--park <n>", "memory mode: n receives parked on an empty --topic over --connections", kInteger},
                  {"--pid <pid>", "the broker's process id (--park samples its /proc/<pid>/status)", kInteger},
                  {"--settle <seconds>", "--park: wait before the sample (default 5; below the 20 s long poll)",
                   kNumber},
                  jsonOption()});
  return options;
}

Registrar registrar("pop-consumer",
                    "RocketMQ 5.x POP consumer over gRPC: receive+ack TPS, redelivery delay, memory per parked receive",
                    popConsumerOptions(), &runPopConsumer);

}  // namespace
}  // namespace rmq::bench
