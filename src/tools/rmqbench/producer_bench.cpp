// `rmqbench producer`: send load through our client library against a running node.
// Modes: sync (default; -t coroutines each awaiting its send), --blocking (-t OS threads calling
// the blocking send(), like Java's benchmark), --async (-t chains of callback sends: each
// completion issues the next, so -t sends are in flight). --instances P spreads the workers over P
// Producer objects (one connection each). --batch B sends B messages per request (TPS counts
// messages). --timer-ms M sends timer messages due M ms after their send (`rmqbench timer-lag`
// measures their delivery). Prints Send TPS and latency each second and a SUMMARY line.
#include <condition_variable>
#include <cstdio>
#include <fmt/format.h>
#include <mutex>
#include <thread>
#include <unistd.h>

#include "common/timer_properties.h"
#include "client/producer/producer.h"
#include "common/wall_clock.h"
#include "tools/rmqbench/bench_driver.h"
#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
namespace {

struct ProducerBenchOptions {
  std::string namesrv, topic, tag, group;
  int bodySize = 1024, instances = 1, batch = 1, delayLevel = 0;
  int64_t timerMs = 0;  // --timer-ms: timer messages due this long after their send (TIMER_DELIVER_MS)
  bool keys = false, async = false, blocking = false, json = false;
  LoadOptions load;
  net::TlsContextPtr tls;  // --tls
};

// Messages of one worker: the body is built once; keys are unique per message when asked.
class MessageFactory {
 public:
  MessageFactory(const ProducerBenchOptions& o) : o_(o), body_(static_cast<size_t>(o.bodySize), 'a') {
    for (size_t i = 0; i < body_.size(); ++i) body_[i] = static_cast<char>('a' + i % 26);
  }
  Message make(int worker, int64_t seq) const {
    Message m;
    m.topic = o_.topic;
    m.body = body_;
    if (!o_.tag.empty()) m.putProperty(prop::TAGS, o_.tag);
    if (o_.keys) m.putProperty(prop::KEYS, fmt::format("bench-{}-{}", worker, seq));
    if (o_.delayLevel > 0) m.putProperty(prop::DELAY, std::to_string(o_.delayLevel));
    if (o_.timerMs > 0) m.putProperty(prop::TIMER_DELIVER_MS, std::to_string(nowMillis() + o_.timerMs));
    return m;
  }
  std::vector<Message> makeBatch(int worker, int64_t seq) const {
    std::vector<Message> v;
    for (int i = 0; i < o_.batch; ++i) v.push_back(make(worker, seq * o_.batch + i));
    return v;
  }

 private:
  const ProducerBenchOptions& o_;
  std::string body_;
};

// False (problems recorded in args) when the options conflict.
bool readOptions(OptionValues& args, ProducerBenchOptions& o) {
  o.namesrv = args.get({"n"}, "");
  o.topic = args.get({"topic"}, "BenchmarkTest");
  o.tag = args.get({"tag"}, "TagA");
  o.group = args.get({"group"}, "benchmark_producer");
  o.load = readLoad(args);
  o.bodySize = static_cast<int>(args.getInt({"s"}, 1024));
  o.instances = static_cast<int>(args.getInt({"instances"}, 1));
  o.batch = static_cast<int>(args.getInt({"batch"}, 1));
  o.delayLevel = static_cast<int>(args.getInt({"delay-level"}, 0));
  o.timerMs = args.getInt({"timer-ms"}, 0);
  o.load.rate = args.getDouble({"tps"}, 0);
  o.keys = args.flag("keys");
  o.async = args.flag("async");
  o.blocking = args.flag("blocking");
  o.json = args.flag("json");
  if (auto tls = tlsFromArgs(args); tls) o.tls = std::move(*tls);
  else args.addError(tls.error().message);
  if (o.bodySize < 1 || o.instances < 1 || o.batch < 1 || o.delayLevel < 0 || o.timerMs < 0)
    args.addError("-s, --instances, --batch must be >= 1 and --delay-level, --timer-ms >= 0");
  if (o.load.rate > 0 && (o.async || o.blocking)) args.addError("--tps paces sync (coroutine) sends only");
  if (o.async && o.blocking) args.addError("--async and --blocking exclude each other");
  if (o.async && o.batch > 1) args.addError("--batch works with sync and --blocking sends only");
  return args.errors().empty();
}

// Whether `r` is SEND_OK; otherwise notes why on the meter (the status name or the error).
bool sendOk(BenchMeter& meter, const Result<client::SendResult>& r) {
  if (r.ok() && r->status == client::SendStatus::SEND_OK) return true;
  if (r.ok()) meter.noteFailure(client::sendStatusName(r->status));
  else meter.noteFailure(std::string_view(r.error().message).substr(0, 100));
  return false;
}

void recordResult(BenchMeter& meter, uint64_t t0, bool ok, int messages) {
  meter.latency(0).record(nowMicros() - t0);
  if (ok) meter.success(static_cast<uint64_t>(messages));
  else meter.failure(static_cast<uint64_t>(messages));
}

// --async: `workers` callback chains; blocks until all chains ended.
void runAsyncChains(std::vector<std::unique_ptr<client::Producer>>& producers, const ProducerBenchOptions& o,
                    const MessageFactory& factory, BenchMeter& meter) {
  LoadBudget budget(o.load);
  std::mutex mu;
  std::condition_variable cv;
  int running = o.load.workers;
  std::function<void(int, int64_t)> next = [&](int worker, int64_t seq) {
    if (!budget.take()) {
      std::lock_guard lk(mu);
      if (--running == 0) cv.notify_all();
      return;
    }
    uint64_t t0 = nowMicros();
    producers[static_cast<size_t>(worker) % producers.size()]->sendAsync(
        factory.make(worker, seq), [&, worker, seq, t0](Result<client::SendResult> r) {
          recordResult(meter, t0, sendOk(meter, r), 1);
          next(worker, seq + 1);
        });
  };
  for (int w = 0; w < o.load.workers; ++w) next(w, 0);
  std::unique_lock lk(mu);
  cv.wait(lk, [&] { return running == 0; });
}

// --blocking: `workers` OS threads calling the blocking send.
void runBlockingThreads(std::vector<std::unique_ptr<client::Producer>>& producers, const ProducerBenchOptions& o,
                        const MessageFactory& factory, BenchMeter& meter) {
  LoadBudget budget(o.load);
  std::vector<std::thread> threads;
  for (int w = 0; w < o.load.workers; ++w) {
    threads.emplace_back([&, w] {
      auto& p = *producers[static_cast<size_t>(w) % producers.size()];
      for (int64_t seq = 0; budget.take(); ++seq) {
        uint64_t t0 = nowMicros();
        auto r = o.batch > 1 ? p.sendBatch(factory.makeBatch(w, seq)) : p.send(factory.make(w, seq));
        recordResult(meter, t0, sendOk(meter, r), o.batch);
      }
    });
  }
  for (auto& t : threads) t.join();
}

int runProducer(OptionValues& args) {
  ProducerBenchOptions o;
  if (!readOptions(args, o)) return 2;
  std::vector<std::unique_ptr<client::Producer>> producers;
  for (int i = 0; i < o.instances; ++i) {
    client::ProducerOptions po;
    po.group = o.group;
    po.client.namesrvAddr = o.namesrv;
    po.client.tls = o.tls;
    po.client.instanceName = fmt::format("bench-{}-{}", ::getpid(), i);
    auto p = std::make_unique<client::Producer>(po);
    if (auto r = p->start(); !r) {
      std::fprintf(stderr, "rmqbench producer: start failed: %s\n", r.error().message.c_str());
      return 1;
    }
    producers.push_back(std::move(p));
  }
  MessageFactory factory(o);
  // Warm-up: fetch the route and open the connection outside the measurement; a failure here
  // (no route, topic missing) ends the run with the broker's reason.
  if (auto r = producers[0]->send(factory.make(0, -1)); !r) {
    std::fprintf(stderr, "rmqbench producer: first send to %s failed: code %d %s\n", o.topic.c_str(),
                 r.error().code, r.error().message.c_str());
    return 1;
  }
  const char* mode = o.async ? "async" : o.blocking ? "blocking" : "sync";
  if (!o.json)
    std::printf("producer: topic %s, %s, %d workers, %d instances, body %d B, batch %d, %s\n", o.topic.c_str(), mode,
                o.load.workers, o.instances, o.bodySize, o.batch, describeLoad(o.load).c_str());

  BenchMeter meter("send", {"send"});
  BenchReporter reporter(meter, o.json);
  reporter.start();
  if (o.async) {
    runAsyncChains(producers, o, factory, meter);
  } else if (o.blocking) {
    runBlockingThreads(producers, o, factory, meter);
  } else {
    auto seqs = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(o.load.workers), 0);
    LoadOptions perRequest = o.load;
    runLoad([&](int w) -> asio::io_context& { return producers[static_cast<size_t>(w) % producers.size()]->instance().io(); },
            perRequest, meter, [&, seqs](int w) -> asio::awaitable<bool> {
              auto& p = *producers[static_cast<size_t>(w) % producers.size()];
              int64_t seq = (*seqs)[static_cast<size_t>(w)]++;
              // Two separate co_awaits (not one ?: expression: GCC 12 mis-destroys temporaries
              // of co_await inside a conditional operator).
              if (o.batch > 1) {
                auto r = co_await p.asyncSendBatch(factory.makeBatch(w, seq));
                bool ok = sendOk(meter, r);
                if (ok) meter.success(static_cast<uint64_t>(o.batch - 1));
                co_return ok;
              }
              auto r = co_await p.asyncSend(factory.make(w, seq));
              co_return sendOk(meter, r);
            });
  }
  reporter.stop({{"mode", mode}, {"workers", std::to_string(o.load.workers)},
                 {"instances", std::to_string(o.instances)}, {"body", std::to_string(o.bodySize)},
                 {"batch", std::to_string(o.batch)}});
  for (auto& p : producers) p->shutdown();
  return meter.ok() > 0 ? 0 : 1;
}

std::vector<OptionSpec> producerOptions() {
  auto options = loadOptionSpecs("concurrent senders (default 1)", "sends");
  options.insert(options.end(), {namesrvOption(),
                                 {"--topic <topic>", "default BenchmarkTest"},
                                 {"-s <bytes>", "body size (default 1024)", kInteger},
                                 {"--instances <n>", "Producer objects, one connection each (default 1)", kInteger},
                                 {"--async", "callback sends, -t in flight"},
                                 {"--blocking", "OS threads calling the blocking send"},
                                 {"--batch <n>", "messages per request (default 1)", kInteger},
                                 {"--tag <tag>", "default TagA"},
                                 {"--keys", "a unique key per message"},
                                 {"--delay-level <n>", "delay level (default 0)", kInteger},
                                 {"--timer-ms <ms>", "timer messages: TIMER_DELIVER_MS = send time + ms (see timer-lag)", kInteger},
                                 {"--tps <n>", "pace sync sends to this total rate", kNumber},
                                 {"--group <group>", "default benchmark_producer"},
                                 jsonOption()});
  auto tls = tlsOptions();
  options.insert(options.end(), tls.begin(), tls.end());
  return options;
}

Registrar registrar("producer", "send load through the client library (sync / async / blocking, batch, delay)",
                    producerOptions(), &runProducer);

}  // namespace
}  // namespace rmq::bench
