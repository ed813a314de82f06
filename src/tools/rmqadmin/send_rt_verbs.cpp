// Send-time verbs over a Producer: clusterRT (every broker of the clusters at once, `amount` sends
// each to the topic named after the broker, as mqadmin does) and sendMsgStatus (one broker, each
// send's RT and SendResult). checkMsgSendRT (one topic) is in message_verbs.cpp.
#include <fmt/format.h>

#include <chrono>
#include <thread>
#include <unistd.h>

#include "client/producer/producer.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

int64_t millisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
}

struct SendTimings {
  int64_t ok = 0;
  int64_t failed = 0;
  double avgRt = 0;  // ms, the first send (route lookup, connection) left out, as mqadmin computes it
};

// `amount` sends of `msg` one after another (a coroutine: brokers are measured side by side).
asio::awaitable<Result<SendTimings>> timedSends(client::Producer* producer, Message msg, int64_t amount) {
  SendTimings out;
  int64_t elapsed = 0;
  for (int64_t i = 0; i < amount; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto sent = co_await producer->asyncSend(msg);
    if (sent) ++out.ok;
    else ++out.failed;
    if (i != 0) elapsed += millisSince(start);
  }
  out.avgRt = amount > 1 ? static_cast<double>(elapsed) / static_cast<double>(amount - 1) : 0.0;
  co_return out;
}

struct BrokerOfCluster {
  std::string cluster;
  std::string broker;
};

// mqadmin clusterRT. mqadmin repeats every -i seconds until killed; here -r rounds (default 1).
int clusterRT(VerbContext& ctx) {
  int64_t amount = ctx.args.getInt({"a", "amount"}, 100);
  int64_t size = ctx.args.getInt({"s", "size"}, 128);
  int64_t interval = ctx.args.getInt({"i", "interval"}, 10);
  int64_t rounds = ctx.args.getInt({"r", "rounds"}, 1);
  bool printAsTlog = boolOption(ctx, {"p", "printLog"}, false);
  std::string machineRoom = ctx.args.get({"m", "machineRoom"}, "noname");
  std::string only = ctx.args.get({"c", "cluster"}, "");
  if (amount < 1) ctx.usageError("-a must be at least 1");
  if (size < 0) ctx.usageError("-s must not be negative");
  if (rounds < 1) ctx.usageError("-r must be at least 1");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto info = admin.run(admin.asyncClusterInfo());
  if (!info) return ctx.fail(info.error());
  std::vector<BrokerOfCluster> targets;
  for (auto& [cluster, brokers] : info->clusterAddrTable) {
    if (!only.empty() && cluster != only) continue;
    for (auto& b : brokers) targets.push_back({cluster, b});
  }
  if (!only.empty() && targets.empty()) return ctx.fail(fmt::format("cluster [{}] not exist", only));
  client::ProducerOptions po;
  po.group = fmt::format("PID_RMQADMIN_RT_{}", ::getpid());
  po.client = toolClientConfig(ctx);
  client::Producer producer(po);
  if (auto r = producer.start(); !r) return ctx.fail(r.error());
  Table* t = printAsTlog ? nullptr
                         : &ctx.report.table("rt", {"#Cluster Name", "#Broker Name", "#RT", "#successCount", "#failCount"});
  for (int64_t round = 0; round < rounds; ++round) {
    if (round > 0) std::this_thread::sleep_for(std::chrono::seconds(interval));
    std::vector<asio::awaitable<Result<SendTimings>>> sends;
    for (auto& target : targets) {
      Message msg;
      msg.topic = target.broker;  // every broker serves a topic named after itself
      msg.body.assign(static_cast<size_t>(size), 'a');
      sends.push_back(timedSends(&producer, std::move(msg), amount));
    }
    auto deadline = po.sendMsgTimeout * (amount * (po.retryTimesWhenSendFailed + 1) + 1);
    auto timings = producer.instance().runSync(net::whenAll(std::move(sends), deadline));
    for (size_t i = 0; i < targets.size(); ++i) {
      SendTimings st = timings[i] ? *timings[i] : SendTimings{0, amount, 0};
      if (t) {
        t->add({targets[i].cluster, targets[i].broker, Cell(st.avgRt, 2), st.ok, st.failed});
      } else {
        auto now = std::chrono::system_clock::now().time_since_epoch();
        std::string when = formatTimestamp(std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
        ctx.report.line(fmt::format("{}|{}|{}|{}|{:.0f}", when.substr(0, 19), machineRoom, targets[i].cluster,
                                    targets[i].broker, st.avgRt));
      }
    }
  }
  producer.shutdown();
  return 0;
}

// SendResult.toString() of the Java client.
std::string sendResultText(const client::SendResult& r) {
  return fmt::format("SendResult [sendStatus={}, msgId={}, offsetMsgId={}, messageQueue={}, queueOffset={}]",
                     client::sendStatusName(r.status), r.msgId, r.offsetMsgId, r.queue.toString(), r.queueOffset);
}

// mqadmin's body: "hello jodie" repeated until at least `size` bytes.
Message helloMessage(const std::string& topic, int64_t size) {
  Message msg;
  msg.topic = topic;
  for (int64_t i = 0; i < size; i += 11) msg.body += "hello jodie";
  return msg;
}

int sendMsgStatus(VerbContext& ctx) {
  std::string broker = ctx.required({"b", "brokerName"});
  int64_t size = ctx.args.getInt({"s", "messageSize"}, 128);
  int64_t count = ctx.args.getInt({"c", "count"}, 50);
  if (ctx.badUsage()) return 2;
  client::ProducerOptions po;
  po.group = "PID_SMSC";
  po.client = toolClientConfig(ctx);
  client::Producer producer(po);
  if (auto r = producer.start(); !r) return ctx.fail(r.error());
  auto warmUp = producer.send(helloMessage(broker, 16));
  if (!warmUp) {
    producer.shutdown();
    return ctx.fail(warmUp.error());
  }
  for (int64_t i = 0; i < count; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto sent = producer.send(helloMessage(broker, size));
    if (!sent) {
      producer.shutdown();
      return ctx.fail(sent.error());
    }
    ctx.report.line(fmt::format("rt={}ms, SendResult={}", millisSince(start), sendResultText(*sent)));
  }
  producer.shutdown();
  return 0;
}

constexpr auto kInt = ValueKind::Integer;

VerbRegistrar r1({"clusterRT", "List All clusters Message Send RT",
                  {{"-a, --amount <n>", "message amount | default 100", kInt},
                   {"-s, --size <bytes>", "message size | default 128 Byte", kInt},
                   {"-c, --cluster <name>", "cluster name | default display all cluster"},
                   {"-p, --printLog <bool>", "print as tlog | default false", ValueKind::Boolean},
                   {"-m, --machineRoom <name>", "machine room name | default noname"},
                   {"-i, --interval <s>", "seconds between rounds | default 10", kInt},
                   {"-r, --rounds <n>", "rounds to run | default 1 (mqadmin runs until killed)", kInt}},
                  &clusterRT});
VerbRegistrar r2({"sendMsgStatus", "send msg to broker.",
                  {{"-b, --brokerName <name>", "Broker Name (required)"},
                   {"-s, --messageSize <bytes>", "Message Size, Default: 128", kInt},
                   {"-c, --count <n>", "send message count, Default: 50", kInt}},
                  &sendMsgStatus});

}  // namespace
}  // namespace rmq::admin
