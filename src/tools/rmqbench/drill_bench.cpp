// `rmqbench drill-produce` / `drill-consume`: the two clients of scripts/drill.sh (openchaos
// style), built on our client library. The producer sends messages with unique ids
// ("<run>-<worker>-<seq>", also the body's head and the key) from -t blocking threads and writes a
// send log line per answer; the consumer pulls every queue of the topic from offset 0 and writes a
// receive log line per message. `rmqbench drill-check` (drill_check.cpp) compares the two.
//
// Send log:    S <id> <status> <broker> <queueId> <queueOffset> <epoch ms> <send began, epoch ms>
//              (status SEND_OK, FLUSH_DISK_TIMEOUT, ..., or ERR<code>; "began" tells a send issued after a
//              fault from an answer that was already on its way)
// Receive log: R <id> <broker> <queueId> <queueOffset> <epoch ms>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "client/consumer/pull_consumer.h"
#include "client/producer/producer.h"
#include "common/wall_clock.h"
#include "tools/rmqbench/bench_registry.h"
#include "tools/rmqbench/line_log.h"

namespace rmq::bench {
namespace {

const char* sendStatusText(client::SendStatus s) {
  switch (s) {
    case client::SendStatus::SEND_OK: return "SEND_OK";
    case client::SendStatus::FLUSH_DISK_TIMEOUT: return "FLUSH_DISK_TIMEOUT";
    case client::SendStatus::FLUSH_SLAVE_TIMEOUT: return "FLUSH_SLAVE_TIMEOUT";
    case client::SendStatus::SLAVE_NOT_AVAILABLE: return "SLAVE_NOT_AVAILABLE";
  }
  return "UNKNOWN";
}

int runDrillProduce(OptionValues& args) {
  std::string topic = args.get({"topic"}, "DrillTopic");
  std::string run = args.get({"run"}, fmt::format("r{}", ::getpid()));
  std::string logPath = args.get({"log"}, "send.log");
  int workers = static_cast<int>(args.getInt({"t"}, 4));
  double seconds = args.getDouble({"d"}, 60);
  double tps = args.getDouble({"tps"}, 200);
  auto size = static_cast<size_t>(args.getInt({"s"}, 256));
  if (workers < 1 || seconds <= 0 || tps <= 0) {
    args.addError("-t, -d and --tps must be positive");
    return 2;
  }
  LineLog log(logPath);
  if (!log.ok()) {
    std::fprintf(stderr, "rmqbench drill-produce: cannot open %s\n", logPath.c_str());
    return 1;
  }
  client::ProducerOptions po;
  po.group = args.get({"group"}, "drill_producer");
  po.client.namesrvAddr = args.get({"n"}, "");
  po.client.instanceName = "drill-" + run;
  client::Producer producer(po);
  if (auto r = producer.start(); !r) {
    std::fprintf(stderr, "rmqbench drill-produce: start failed: %s\n", r.error().message.c_str());
    return 1;
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  auto interval = std::chrono::duration<double>(workers / tps);  // each worker's pace
  std::atomic<int64_t> ok{0}, failed{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      auto next = std::chrono::steady_clock::now();
      for (int64_t seq = 0; std::chrono::steady_clock::now() < deadline; ++seq) {
        std::string id = fmt::format("{}-{}-{}", run, w, seq);
        Message m;
        m.topic = topic;
        m.body = id + ":";
        while (m.body.size() < size) m.body.push_back(static_cast<char>('a' + m.body.size() % 26));
        m.putProperty(prop::KEYS, id);
        const int64_t began = nowMillis();
        auto r = producer.send(std::move(m));
        if (r.ok()) {
          log.write(fmt::format("S {} {} {} {} {} {} {}\n", id, sendStatusText(r->status), r->queue.brokerName,
                                r->queue.queueId, r->queueOffset, nowMillis(), began));
          (r->status == client::SendStatus::SEND_OK ? ok : failed).fetch_add(1);
        } else {
          log.write(fmt::format("S {} ERR{} - -1 -1 {} {}\n", id, r.error().code, nowMillis(), began));
          failed.fetch_add(1);
        }
        next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(interval);
        auto now = std::chrono::steady_clock::now();
        if (next > now) std::this_thread::sleep_until(next);
        else next = now;  // behind (a fault): no burst to catch up
      }
    });
  }
  for (auto& t : threads) t.join();
  producer.shutdown();
  std::printf("drill-produce: %lld SEND_OK, %lld other answers\n", static_cast<long long>(ok.load()),
              static_cast<long long>(failed.load()));
  return 0;
}

int runDrillConsume(OptionValues& args) {
  std::string topic = args.get({"topic"}, "DrillTopic");
  std::string logPath = args.get({"log"}, "recv.log");
  std::string stopFile = args.get({"stop-file"}, "");
  double seconds = args.getDouble({"d"}, 600);
  double quiet = args.getDouble({"quiet"}, 10);
  LineLog log(logPath);
  if (!log.ok()) {
    std::fprintf(stderr, "rmqbench drill-consume: cannot open %s\n", logPath.c_str());
    return 1;
  }
  client::PullConsumerOptions co;
  co.group = args.get({"group"}, "drill_consumer");
  co.client.namesrvAddr = args.get({"n"}, "");
  co.consumerPullTimeout = std::chrono::milliseconds(3000);
  client::PullConsumer consumer(co);
  if (auto r = consumer.start(); !r) {
    std::fprintf(stderr, "rmqbench drill-consume: start failed: %s\n", r.error().message.c_str());
    return 1;
  }
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  auto lastMessage = Clock::now();
  auto lastRefresh = Clock::time_point{};
  std::map<client::MessageQueue, int64_t> next;  // queue -> next offset to pull
  int64_t received = 0;
  while (Clock::now() < deadline) {
    if (Clock::now() - lastRefresh > std::chrono::seconds(5)) {
      if (auto qs = consumer.fetchSubscribeMessageQueues(topic); qs.ok()) {
        for (auto& q : *qs) next.emplace(q, 0);
        lastRefresh = Clock::now();
      }
    }
    bool got = false;
    for (auto& [q, off] : next) {
      auto r = consumer.pull(q, "*", off, 64);
      if (!r.ok()) continue;  // broker down: the next round retries
      if (r->status == client::PullStatus::FOUND) {
        for (auto& m : r->messages) {
          std::string_view body(m.body);
          auto colon = body.find(':');
          log.write(fmt::format("R {} {} {} {} {}\n", body.substr(0, colon), q.brokerName, q.queueId, m.queueOffset,
                                nowMillis()));
        }
        received += static_cast<int64_t>(r->messages.size());
        got = !r->messages.empty() || got;
      }
      if (r->nextBeginOffset > off || r->status == client::PullStatus::OFFSET_ILLEGAL) off = r->nextBeginOffset;
    }
    if (got) {
      lastMessage = Clock::now();
      continue;
    }
    bool stopping = !stopFile.empty() && std::filesystem::exists(stopFile);
    if (stopping && Clock::now() - lastMessage > std::chrono::duration<double>(quiet)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  consumer.shutdown();
  std::printf("drill-consume: %lld messages from %zu queues\n", static_cast<long long>(received), next.size());
  return 0;
}

std::vector<OptionSpec> commonOptions() {
  return {namesrvOption(), {"--topic <topic>", "default DrillTopic"}, {"--log <file>", "log file to append to"},
          {"--group <group>", "client group"}};
}

std::vector<OptionSpec> produceOptions() {
  auto o = commonOptions();
  o.insert(o.end(), {{"-t <n>", "sending threads (default 4)", kInteger},
                     {"-d <seconds>", "how long to send (default 60)", kNumber},
                     {"--tps <n>", "total sends per second (default 200)", kNumber},
                     {"-s <bytes>", "body size (default 256)", kInteger},
                     {"--run <id>", "prefix of the message ids (default r<pid>)"}});
  return o;
}

std::vector<OptionSpec> consumeOptions() {
  auto o = commonOptions();
  o.insert(o.end(), {{"-d <seconds>", "upper bound of the run (default 600)", kNumber},
                     {"--stop-file <path>", "once it exists, stop after --quiet seconds without a message"},
                     {"--quiet <seconds>", "default 10", kNumber}});
  return o;
}

Registrar produceRegistrar("drill-produce", "drill: send unique ids, one send-log line per answer (scripts/drill.sh)",
                           produceOptions(), &runDrillProduce);
Registrar consumeRegistrar("drill-consume", "drill: pull every queue from 0, one receive-log line per message",
                           consumeOptions(), &runDrillConsume);

}  // namespace
}  // namespace rmq::bench
