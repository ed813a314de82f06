// Queue verbs: queryCq (raw consume queue units of one queue, QUERY_CONSUME_QUEUE) and allocateMQ
// (how AllocateMessageQueueAveragely would share a topic's queues among the given client ids).
#include <fmt/format.h>

#include "client/consumer/allocate.h"
#include "common/json.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

const std::string kRule = "======================================";

// mqadmin's text: subscription / filter data when present, "max: .., min: ..", one block per unit.
void printConsumeQueueText(VerbContext& ctx, const client::ConsumeQueueView& cq, int64_t index) {
  if (cq.subscriptionJson) {
    ctx.report.line("Subscription data: ");
    ctx.report.line(prettyJson(*cq.subscriptionJson));
    ctx.report.line(kRule);
  }
  if (cq.filterData) {
    ctx.report.line("Filter data: ");
    ctx.report.line(*cq.filterData);
    ctx.report.line(kRule);
  }
  ctx.report.line("Queue data: ");
  ctx.report.line(fmt::format("max: {}, min: {}", cq.maxQueueIndex, cq.minQueueIndex));
  ctx.report.line(kRule);
  for (auto& u : cq.units) {
    ctx.report.line(fmt::format("idx: {}", index++));
    ctx.report.line(fmt::format("ConsumeQueueData{{physicOffset={}, physicSize={}, tagsCode={}, extendDataJson='{}', "
                                "bitMap='{}', eval={}, msg='{}'}}",
                                u.physicOffset, u.physicSize, u.tagsCode, u.extendDataJson, u.bitMap, u.eval, u.msg));
    ctx.report.line(kRule);
  }
}

void printConsumeQueueJson(VerbContext& ctx, const client::ConsumeQueueView& cq, int64_t index) {
  if (cq.subscriptionJson) ctx.report.json("subscriptionData", *cq.subscriptionJson);
  ctx.report.kv("queue", {{"max", std::to_string(cq.maxQueueIndex)}, {"min", std::to_string(cq.minQueueIndex)}});
  auto& t = ctx.report.table("queueData", {"#idx", "#physicOffset", "#physicSize", "#tagsCode"});
  for (auto& u : cq.units) t.add({index++, u.physicOffset, u.physicSize, u.tagsCode});
}

int queryCq(VerbContext& ctx) {
  std::string topic = ctx.required({"t", "topic"});
  ctx.required({"q", "queue"});
  ctx.required({"i", "index"});
  auto queueId = static_cast<int32_t>(ctx.args.getInt({"q", "queue"}, 0));
  int64_t index = ctx.args.getInt({"i", "index"}, 0);
  auto count = static_cast<int32_t>(ctx.args.getInt({"c", "count"}, 10));
  std::string broker = ctx.args.get({"b", "broker"}, "");
  std::string group = ctx.args.get({"g", "consumer"}, "");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  if (broker.empty()) {  // like mqadmin: the master of the route's first broker
    auto route = admin.run(admin.asyncTopicRoute(topic));
    if (!route) return ctx.fail(route.error());
    const std::string* master = nullptr;
    if (!route->brokerDatas.empty()) master = route->brokerDatas.front().masterAddr();
    if (!master) return ctx.fail("No topic route data!");
    broker = *master;
  }
  auto cq = admin.run(admin.asyncQueryConsumeQueue(broker, topic, queueId, index, count, group));
  if (!cq) return failAt(ctx, broker, cq.error());
  if (ctx.json) printConsumeQueueJson(ctx, *cq, index);
  else printConsumeQueueText(ctx, *cq, index);
  return 0;
}

// RebalanceResult as mqadmin prints it: {"result":{"<ip>":[{"brokerName":..,"queueId":..,"topic":..}]}}.
std::string rebalanceJson(const std::vector<std::string>& ips, const std::vector<client::MessageQueue>& mqs) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("result");
  w.StartObject();
  for (auto& ip : ips) {
    w.Key(ip.c_str());
    w.StartArray();
    for (auto& mq : client::allocateAveragely(ip, mqs, ips)) {
      w.StartObject();
      w.Key("brokerName"); w.String(mq.brokerName.c_str());
      w.Key("queueId"); w.Int(mq.queueId);
      w.Key("topic"); w.String(mq.topic.c_str());
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

int allocateMQ(VerbContext& ctx) {
  std::string topic = ctx.required({"t", "topic"});
  std::string ipList = ctx.required({"i", "ipList"});
  if (ctx.badUsage()) return 2;
  std::vector<std::string> ips;
  for (size_t pos = 0; pos <= ipList.size();) {
    size_t comma = ipList.find(',', pos);
    if (comma == std::string::npos) comma = ipList.size();
    ips.push_back(ipList.substr(pos, comma - pos));
    pos = comma + 1;
  }
  auto& admin = ctx.admin();
  auto route = admin.run(admin.asyncTopicRoute(topic));
  if (!route) return ctx.fail(route.error());
  std::string json = rebalanceJson(ips, client::subscribeQueues(topic, *route));
  if (ctx.json) ctx.report.json("rebalance", json);
  else ctx.report.line(json);  // compact, as mqadmin prints it
  return 0;
}

constexpr auto kInt = ValueKind::Integer;

VerbRegistrar r1({"queryCq", "Query cq command.",
                  {{"-t, --topic <topic>", "topic name (required)"}, {"-q, --queue <id>", "queue num, ie. 1 (required)", kInt},
                   {"-i, --index <n>", "start queue index. (required)", kInt}, {"-c, --count <n>", "how many. (default 10)", kInt},
                   {"-b, --broker <addr>", "broker addr. (default: the master of the route's first broker)"},
                   {"-g, --consumer <group>", "consumer group: also print its subscription"}},
                  &queryCq});
VerbRegistrar r2({"allocateMQ", "Allocate MQ",
                  {{"-t, --topic <topic>", "topic name (required)"},
                   {"-i, --ipList <ids>", "comma-separated client ids (required)"}},
                  &allocateMQ});

}  // namespace
}  // namespace rmq::admin
