// `rmqbench drill-pop-consume`: the POP consumers of `scripts/drill.sh --pop`. -t workers, each
// with its own gRPC connection to the broker's grpcServerPort (pop_client.h), receive batches of
// the drill topic (ids are the head of the body, as drill-produce writes them) and ack them; some
// deliveries are deliberately not acked in time so that they come back: every --skip-every-th first
// delivery is never acked, every --late-every-th is acked --late-ms after its invisible time ended
// (the broker answers INVALID_RECEIPT_HANDLE and redelivers it). Redeliveries are always acked at
// once. --process-ms holds each batch that long before its ack (a consumer's processing time: what a
// kill finds in flight). A worker whose connection fails (the broker killed) reconnects every 200 ms. It stops once
// the --stop-file exists and nothing arrived for --quiet seconds (or after -d).
//
// Pop log (one line per event; `drill-check --pop` reads it):
//   D <id> <attempt> <queueId> <queueOffset> <plan ack|skip|late> <due epoch ms> <epoch ms>
//   A <id> <attempt> <OK|code|LOST> <ack sent epoch ms> <answered epoch ms>
//   (code: the entry's v2 status code, e.g. 40001 INVALID_RECEIPT_HANDLE; LOST: the call failed,
//   the broker may or may not have stored the ack)
#include <unistd.h>

#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <thread>

#include "common/wall_clock.h"
#include "net/io_pool.h"
#include "tools/rmqbench/bench_registry.h"
#include "tools/rmqbench/line_log.h"
#include "tools/rmqbench/pop_client.h"
#include "tools/rmqbench/run_on.h"

namespace rmq::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct DrillPopOptions {
  std::string host = "127.0.0.1", stopFile;
  uint16_t port = 8081;
  ReceiveSpec receive;
  int workers = 4;
  int64_t skipEvery = 50, lateEvery = 20, lateMs = 500, processMs = 0;
  double seconds = 600, quiet = 10;
};

struct DrillPopRun {
  const DrillPopOptions& o;
  LineLog& log;
  Clock::time_point deadline;
  std::atomic<int64_t> firsts{0}, delivered{0}, acked{0}, reconnects{0};
  std::atomic<int64_t> lastMessageMs{nowMillis()};

  std::string idOf(const Delivered& m) const { return m.body.substr(0, m.body.find(':')); }

  const char* planOf(const Delivered& m) {
    if (m.attempt > 1) return "ack";
    int64_t n = firsts.fetch_add(1) + 1;
    if (o.skipEvery > 0 && n % o.skipEvery == 0) return "skip";
    if (o.lateEvery > 0 && n % o.lateEvery == 0) return "late";
    return "ack";
  }

  bool finished() const {
    if (Clock::now() >= deadline) return true;
    return !o.stopFile.empty() && std::filesystem::exists(o.stopFile) &&
           nowMillis() - lastMessageMs.load() > static_cast<int64_t>(o.quiet * 1000);
  }

  asio::awaitable<void> ackAll(PopChannel& ch, const std::vector<const Delivered*>& batch) {
    if (batch.empty()) co_return;
    int64_t sent = nowMillis();
    AckOutcome a = co_await ch.ack(o.receive.group, o.receive.topic, batch);
    int64_t answered = nowMillis();
    for (size_t i = 0; i < batch.size(); ++i) {
      std::string result = !a.transportOk || i >= a.codes.size() ? "LOST"
                           : a.codes[i] == kV2Ok                 ? "OK"
                                                                 : std::to_string(a.codes[i]);
      if (result == "OK") acked.fetch_add(1);
      log.write(fmt::format("A {} {} {} {} {}\n", idOf(*batch[i]), batch[i]->attempt, result, sent, answered));
    }
  }

  asio::awaitable<void> pause(std::chrono::milliseconds d) {
    asio::steady_timer t(co_await asio::this_coro::executor, d);
    co_await t.async_wait(asio::use_awaitable);
  }

  asio::awaitable<bool> worker(int w) {
    std::shared_ptr<PopChannel> ch;
    std::vector<Delivered> late;  // acked once their due moment + lateMs passed
    const std::string client = fmt::format("127.0.0.1@{}@{}@drill-pop", ::getpid(), w);
    while (!finished() || !late.empty()) {
      if (!ch || !ch->isOpen()) {
        auto made = co_await PopChannel::connect(o.host, o.port, client);
        if (!made) {
          co_await pause(std::chrono::milliseconds(200));
          continue;
        }
        ch = *made;
        reconnects.fetch_add(1);
      }
      const int64_t cut = nowMillis();
      auto isDue = [&](const Delivered& m) { return cut >= m.dueMs + o.lateMs; };
      std::vector<const Delivered*> dueLate;
      for (const auto& m : late)
        if (isDue(m)) dueLate.push_back(&m);
      co_await ackAll(*ch, dueLate);
      std::erase_if(late, isDue);
      if (finished()) {
        co_await pause(std::chrono::milliseconds(100));
        continue;
      }
      ReceiveOutcome r = co_await ch->receive(o.receive);
      if (!r.transportOk) {
        ch.reset();
        co_await pause(std::chrono::milliseconds(200));
        continue;
      }
      if (!r.messages.empty()) lastMessageMs = nowMillis();
      delivered.fetch_add(static_cast<int64_t>(r.messages.size()));
      std::vector<const Delivered*> now;
      for (auto& m : r.messages) {
        const char* plan = planOf(m);
        log.write(fmt::format("D {} {} {} {} {} {} {}\n", idOf(m), m.attempt, m.queueId, m.queueOffset, plan, m.dueMs,
                              nowMillis()));
        if (plan == std::string_view("ack")) now.push_back(&m);
        else if (plan == std::string_view("late")) late.push_back(m);
      }
      // "Processing": the batch stays in flight this long, so a kill finds messages un-acked.
      if (o.processMs > 0 && !now.empty()) co_await pause(std::chrono::milliseconds(o.processMs));
      co_await ackAll(*ch, now);
    }
    if (ch) ch->close();
    co_return true;
  }
};

int runDrillPopConsume(OptionValues& args) {
  DrillPopOptions o;
  if (!readGrpcEndpoint(args, o.host, o.port)) return 2;
  o.receive.topic = args.get({"topic"}, "DrillTopic");
  o.receive.group = args.get({"group"}, "drill_pop");
  o.receive.batch = static_cast<int>(args.getInt({"batch"}, 16));
  o.receive.invisibleMs = args.getInt({"invisible"}, 3000);
  o.receive.pollMs = 1000;
  o.workers = static_cast<int>(args.getInt({"t"}, 4));
  o.skipEvery = args.getInt({"skip-every"}, 50);
  o.lateEvery = args.getInt({"late-every"}, 20);
  o.lateMs = args.getInt({"late-ms"}, 500);
  o.processMs = args.getInt({"process-ms"}, 0);
  o.seconds = args.getDouble({"d"}, 600);
  o.quiet = args.getDouble({"quiet"}, 10);
  o.stopFile = args.get({"stop-file"}, "");
  std::string logPath = args.get({"log"}, "pop.log");
  if (o.workers < 1 || o.receive.batch < 1 || o.receive.batch > 32 || o.receive.invisibleMs < 1000)
    return args.addError("-t >= 1, --batch 1..32, --invisible >= 1000"), 2;
  LineLog log(logPath);
  if (!log.ok()) {
    std::fprintf(stderr, "rmqbench drill-pop-consume: cannot open %s\n", logPath.c_str());
    return 1;
  }
  DrillPopRun run{o, log, Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(o.seconds * 1000))};
  net::IoPool io(2);
  io.start();
  std::vector<std::thread> threads;
  for (int w = 0; w < o.workers; ++w)
    threads.emplace_back([&, w] { runOn(io.at(static_cast<size_t>(w) % io.size()), run.worker(w)); });
  for (auto& t : threads) t.join();
  io.stop();
  std::printf("drill-pop-consume: %lld deliveries (%lld first), %lld acked, %lld connects\n",
              static_cast<long long>(run.delivered.load()), static_cast<long long>(run.firsts.load()),
              static_cast<long long>(run.acked.load()), static_cast<long long>(run.reconnects.load()));
  return 0;
}

Registrar registrar("drill-pop-consume",
                    "drill: 5.x POP consumers over gRPC, some acks skipped or late, one pop-log line per delivery / ack",
                    {{"--endpoint <host:port>", "the broker's gRPC port (default 127.0.0.1:8081)"},
                     {"--topic <topic>", "default DrillTopic"},
                     {"--group <group>", "default drill_pop"},
                     {"--log <file>", "pop log to append to (default pop.log)"},
                     {"-t <n>", "workers, one connection each (default 4)", kInteger},
                     {"--batch <n>", "messages per receive (default 16)", kInteger},
                     {"--invisible <ms>", "invisible duration (default 3000)", kInteger},
                     {"--skip-every <k>", "never ack every k-th first delivery (default 50, 0 = none)", kInteger},
                     {"--late-every <k>", "ack every k-th first delivery late (default 20, 0 = none)", kInteger},
                     {"--late-ms <ms>", "how long after the invisible time a late ack is sent (default 500)", kInteger},
                     {"--process-ms <ms>", "wait this long between a receive and its ack (default 0)", kInteger},
                     {"-d <seconds>", "upper bound of the run (default 600)", kNumber},
                     {"--stop-file <path>", "once it exists, stop after --quiet seconds without a message"},
                     {"--quiet <seconds>", "default 10", kNumber}},
                    &runDrillPopConsume);

}  // namespace
}  // namespace rmq::bench
