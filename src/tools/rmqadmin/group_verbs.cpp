// Group and client verbs: updateSubGroup, deleteSubGroup, getConsumerConfig, consumerProgress,
// consumerConnection, producerConnection, resetOffsetByTime, skipAccumulatedMessage, cloneGroupOffset.
#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "common/consumer_lag.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

int updateSubGroup(VerbContext& ctx) {
  SubscriptionGroupConfig spec;
  spec.groupName = ctx.required({"g", "groupName"});
  spec.consumeEnable = boolOption(ctx, {"s", "consumeEnable"}, true);
  spec.consumeFromMinEnable = boolOption(ctx, {"m", "consumeFromMinEnable"}, true);
  spec.consumeBroadcastEnable = boolOption(ctx, {"d", "consumeBroadcastEnable"}, true);
  spec.retryQueueNums = static_cast<int32_t>(ctx.args.getInt({"q", "retryQueueNums"}, 1));
  spec.retryMaxTimes = static_cast<int32_t>(ctx.args.getInt({"r", "retryMaxTimes"}, 16));
  spec.brokerId = ctx.args.getInt({"i", "brokerId"}, 0);
  spec.whichBrokerWhenConsumeSlowly = ctx.args.getInt({"w", "whichBrokerWhenConsumeSlowly"}, 1);
  spec.notifyConsumerIdsChangedEnable = boolOption(ctx, {"a", "notifyConsumerIdsChanged"}, true);
  spec.consumeMessageOrderly = boolOption(ctx, {"o", "consumeOrderly"}, false);
  auto call = [&](const std::string& addr) { return ctx.admin().asyncUpdateSubscriptionGroup(addr, spec); };
  int rc = forEachTargetBroker(ctx, call, [&](const std::string& addr, auto& r, size_t) {
    if (!r) return failAt(ctx, addr, r.error());
    ctx.report.line(fmt::format("create subscription group to {} success.", addr));
    return 0;
  });
  if (rc != 0) return rc;
  ctx.report.line(fmt::format(
      "SubscriptionGroupConfig [groupName={}, consumeEnable={}, consumeFromMinEnable={}, consumeBroadcastEnable={}, "
      "retryQueueNums={}, retryMaxTimes={}, brokerId={}, whichBrokerWhenConsumeSlowly={}, "
      "notifyConsumerIdsChangedEnable={}]",
      spec.groupName, spec.consumeEnable, spec.consumeFromMinEnable, spec.consumeBroadcastEnable, spec.retryQueueNums,
      spec.retryMaxTimes, spec.brokerId, spec.whichBrokerWhenConsumeSlowly, spec.notifyConsumerIdsChangedEnable));
  return 0;
}

int deleteSubGroup(VerbContext& ctx) {
  std::string group = ctx.required({"g", "groupName"});
  bool removeOffset = boolOption(ctx, {"r", "removeOffset"}, false);
  auto call = [&](const std::string& addr) { return ctx.admin().asyncDeleteSubscriptionGroup(addr, group, removeOffset); };
  return forEachTargetBroker(ctx, call, [&](const std::string& addr, auto& r, size_t) {
    if (!r) return failAt(ctx, addr, r.error());
    ctx.report.line(fmt::format("delete subscription group [{}] from broker [{}] success.", group, addr));
    return 0;
  });
}

// mqadmin getConsumerConfig: the group's SubscriptionGroupConfig on each broker that has it (one
// node per broker name, master first), asked all at once; a block per broker.
int getConsumerConfig(VerbContext& ctx) {
  std::string group = ctx.required({"g", "groupName"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto info = admin.run(admin.asyncClusterInfo());
  if (!info) return ctx.fail(info.error());
  std::vector<std::string> names, addrs;
  for (auto& [name, data] : info->brokerAddrTable)
    if (auto* addr = data.selectAddr()) {
      names.push_back(name);
      addrs.push_back(*addr);
    }
  auto configs = runEach(ctx, addrs, [&](const std::string& addr) { return admin.asyncSubscriptionGroupConfig(addr, group); });
  for (size_t i = 0; i < addrs.size(); ++i) {
    if (!configs[i]) return failAt(ctx, addrs[i], configs[i].error());
    if (!*configs[i]) continue;
    std::string cluster;
    for (auto& [c, brokers] : info->clusterAddrTable)
      if (std::find(brokers.begin(), brokers.end(), names[i]) != brokers.end()) cluster = c;
    std::vector<std::pair<std::string, std::string>> fields;
    (*configs[i])->forEachField([&](const char* key, const auto& value) { fields.emplace_back(key, fmt::format("{}", value)); });
    ctx.report.line(fmt::format("============================={}:{}=============================", cluster, names[i]));
    ctx.report.kv(names[i], std::move(fields), "=  ");
  }
  return 0;
}

// "PUSH" / "PULL" as mqadmin prints ConsumeType (the wire carries CONSUME_PASSIVELY / ACTIVELY).
std::string consumeTypeName(const std::string& wire) {
  if (wire == "CONSUME_PASSIVELY") return "PUSH";
  if (wire == "CONSUME_ACTIVELY") return "PULL";
  return wire;
}

// Without -g, like mqadmin: every group that has a %RETRY% topic, with its online consumers,
// consume TPS and total lag. A group whose stats or connections cannot be read still gets a row.
int allGroupsProgress(VerbContext& ctx) {
  auto& admin = ctx.admin();
  auto topics = admin.run(admin.asyncTopicList());
  if (!topics) return ctx.fail(topics.error());
  const std::string retryPrefix = "%RETRY%";
  std::vector<std::string> groups;
  for (auto& topic : *topics)
    if (topic.rfind(retryPrefix, 0) == 0) groups.push_back(topic.substr(retryPrefix.size()));
  std::sort(groups.begin(), groups.end());
  auto& t = ctx.report.table("groups", {"#Group", "#Count", "#Version", "#Type", "#Model", "#TPS", "#Diff Total"});
  auto stats = runEach(ctx, groups, [&](const std::string& group) { return admin.asyncConsumeStats(group); });
  auto conns = runEach(ctx, groups, [&](const std::string& group) { return admin.asyncConsumerConnection(group); });
  for (size_t i = 0; i < groups.size(); ++i) {
    int64_t count = 0, tps = 0, diff = 0;
    std::string version, type, model;
    if (stats[i]) {
      tps = static_cast<int64_t>(stats[i]->consumeTps);
      diff = stats[i]->diffTotal();
    }
    if (auto& conn = conns[i]; conn && !conn->connections.empty()) {
      count = static_cast<int64_t>(conn->connections.size());
      int32_t lowest = INT32_MAX;
      for (auto& c : conn->connections) lowest = std::min(lowest, c.version);
      version = std::to_string(lowest);
      type = consumeTypeName(conn->consumeType);
      model = conn->messageModel;
    }
    t.add({groups[i], count, version, type, model, tps, diff});
  }
  return 0;
}

int consumerProgress(VerbContext& ctx) {
  std::string group = ctx.args.get({"g", "groupName"}, "");
  std::string topic = ctx.args.get({"t", "topic"}, "");
  if (ctx.badUsage()) return 2;
  if (group.empty()) return allGroupsProgress(ctx);
  auto& admin = ctx.admin();
  auto stats = admin.run(admin.asyncConsumeStats(group, topic));
  if (!stats) return ctx.fail(stats.error());
  // A POP group (5.x consumers) also shows its messages in flight (5.x's #Inflight column); the
  // diff counts them too: the consumer offset is the first offset not acked.
  auto pop = stats->popTotal();
  std::vector<std::string> columns{"#Topic", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Diff"};
  if (pop) columns.push_back("#Inflight");
  columns.push_back("#LastTime");
  auto& t = ctx.report.table("queues", columns);
  for (auto& e : stats->offsets) {
    std::string last = e.lastTimestamp > 0 ? formatTimestamp(e.lastTimestamp) : "N/A";
    if (pop)
      t.add({e.queue.topic, e.queue.brokerName, e.queue.queueId, e.brokerOffset, e.consumerOffset,
             queueLag(e.brokerOffset, e.consumerOffset), e.pop ? e.pop->inFlight : 0, last});
    else
      t.add({e.queue.topic, e.queue.brokerName, e.queue.queueId, e.brokerOffset, e.consumerOffset,
             queueLag(e.brokerOffset, e.consumerOffset), last});
  }
  std::vector<std::pair<std::string, std::string>> summary{{"Consume TPS", fmt::format("{:.2f}", stats->consumeTps)},
                                                           {"Diff Total", std::to_string(stats->diffTotal())}};
  if (pop) summary.emplace_back("Consume Inflight Total", std::to_string(pop->inFlight));
  ctx.report.kv("summary", summary, ": ", false);
  return 0;
}

int consumerConnection(VerbContext& ctx) {
  std::string group = ctx.required({"g", "consumerGroup"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto cc = admin.run(admin.asyncConsumerConnection(group));
  if (!cc) return ctx.fail(cc.error());
  auto& t = ctx.report.table("connections", {"#ClientId", "#Version", "#Address", "#Language"});
  for (auto& c : cc->connections) t.add({c.clientId, c.version, c.clientAddr, c.language});
  ctx.report.line("");
  ctx.report.line("Below is subscription:");
  auto& s = ctx.report.table("subscriptions", {"#Topic", "#SubExpression"});
  for (auto& sub : cc->subscriptions) s.add({sub.topic, sub.subString});
  ctx.report.line("");
  ctx.report.kv("consumer", {{"ConsumeType", cc->consumeType},
                             {"MessageModel", cc->messageModel},
                             {"ConsumeFromWhere", cc->consumeFromWhere}}, ": ", false);
  return 0;
}

int producerConnection(VerbContext& ctx) {
  std::string group = ctx.required({"g", "producerGroup"});
  std::string topic = ctx.required({"t", "topic"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto conns = admin.run(admin.asyncProducerConnection(group, topic));
  if (!conns) return ctx.fail(conns.error());
  auto& t = ctx.report.table("connections", {"#ClientId", "#Address", "#Language", "#Version"});
  for (auto& c : *conns) t.add({c.clientId, c.clientAddr, c.language, c.version});
  return 0;
}

// The reset of resetOffsetByTime / skipAccumulatedMessage: `heading` (if any), then the new offsets.
int resetOffsets(VerbContext& ctx, const std::string& group, const std::string& topic, int64_t timestampMs, bool force,
                 const std::string& heading) {
  auto& admin = ctx.admin();
  auto offsets = admin.run(admin.asyncResetOffsetByTime(group, topic, timestampMs, force));
  if (!offsets) return ctx.fail(offsets.error());
  if (!heading.empty()) ctx.report.line(heading);
  auto& t = ctx.report.table("offsets", {"#brokerName", "#queueId", "#offset"});
  for (auto& [mq, off] : *offsets) t.add({mq.brokerName, mq.queueId, off});
  return 0;
}

int resetOffsetByTime(VerbContext& ctx) {
  std::string group = ctx.required({"g", "group"});
  std::string topic = ctx.required({"t", "topic"});
  std::string when = ctx.required({"s", "timestamp"});
  bool force = boolOption(ctx, {"f", "force"}, true);
  auto ts = parseTimestamp(when);
  if (!when.empty() && !ts) ctx.usageError("-s expects now, epoch millis or yyyy-MM-dd#HH:mm:ss:SSS, got '" + when + "'");
  if (ctx.badUsage()) return 2;
  std::string heading = fmt::format("reset consumer offset of [{}] on topic [{}] to {}:", group, topic, formatTimestamp(*ts));
  return resetOffsets(ctx, group, topic, *ts, force, heading);
}

// mqadmin skipAccumulatedMessage: every queue's consumer offset moved to its max offset.
int skipAccumulatedMessage(VerbContext& ctx) {
  std::string group = ctx.required({"g", "group"});
  std::string topic = ctx.required({"t", "topic"});
  bool force = boolOption(ctx, {"f", "force"}, true);
  if (ctx.badUsage()) return 2;
  return resetOffsets(ctx, group, topic, client::AdminClient::kSkipToMaxOffset, force, {});
}

// mqadmin cloneGroupOffset: srcGroup's committed offsets of -t written as destGroup's.
int cloneGroupOffset(VerbContext& ctx) {
  std::string src = ctx.required({"s", "srcGroup"});
  std::string dest = ctx.required({"d", "destGroup"});
  std::string topic = ctx.required({"t", "topic"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto copied = admin.run(admin.asyncCloneGroupOffset(src, dest, topic));
  if (!copied) return ctx.fail(copied.error());
  ctx.report.line(fmt::format("clone group offset success. srcGroup[{}], destGroup=[{}], topic[{}]", src, dest, topic));
  if (ctx.json) {  // what was copied, for scripts
    auto& t = ctx.report.table("offsets", {"#brokerName", "#queueId", "#offset"});
    for (auto& [mq, off] : *copied) t.add({mq.brokerName, mq.queueId, off});
  }
  return 0;
}

// mqadmin producer: every producer group of one broker (GET_ALL_PRODUCER_INFO), one line per
// instance as ProducerSubCommand prints ProducerInfo.toString(); groups in name order.
int producer(VerbContext& ctx) {
  std::string broker = ctx.required({"b", "broker"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto table = admin.run(admin.asyncAllProducerInfo(broker));
  if (!table) return failAt(ctx, broker, table.error());
  if (ctx.json) {
    auto& t = ctx.report.table("producers", {"#ProducerGroup", "#ClientId", "#RemoteIP", "#Language", "#Version",
                                             "#LastUpdateTimestamp"});
    for (auto& [group, list] : *table)
      for (auto& p : list) t.add({group, p.clientId, p.remoteIP, p.language, p.version, p.lastUpdateTimestamp});
    return 0;
  }
  for (auto& [group, list] : *table) {
    if (list.empty()) ctx.report.line(fmt::format("producer group ({}) instances are empty", group));
    for (auto& p : list)
      ctx.report.line(fmt::format(
          "producer group ({}) instance : clientId={},remoteIP={}, language={}, version={}, lastUpdateTimestamp={}",
          group, p.clientId, p.remoteIP, p.language, p.version, p.lastUpdateTimestamp));
  }
  return 0;
}

const OptionSpec kBroker{"-b, --brokerAddr <addr>", "one broker"};
const OptionSpec kCluster{"-c, --clusterName <name>", "every master of the cluster"};
constexpr auto kInt = ValueKind::Integer;
constexpr auto kBool = ValueKind::Boolean;

VerbRegistrar r1({"updateSubGroup", "Update or create subscription group",
                  {{"-g, --groupName <group>", "consumer group (required)"}, kBroker, kCluster,
                   {"-s, --consumeEnable <bool>", "consume enable (default true)", kBool},
                   {"-m, --consumeFromMinEnable <bool>", "from min offset (default true)", kBool},
                   {"-d, --consumeBroadcastEnable <bool>", "broadcast (default true)", kBool},
                   {"-q, --retryQueueNums <n>", "retry queues (default 1)", kInt},
                   {"-r, --retryMaxTimes <n>", "max retries (default 16)", kInt},
                   {"-i, --brokerId <id>", "consumer from which broker id (default 0)", kInt},
                   {"-w, --whichBrokerWhenConsumeSlowly <id>", "default 1", kInt},
                   {"-a, --notifyConsumerIdsChanged <bool>", "default true", kBool},
                   {"-o, --consumeOrderly <bool>", "POP consumers get each queue in order (5.x; default false)", kBool}},
                  &updateSubGroup});
VerbRegistrar r2({"deleteSubGroup", "Delete subscription group from broker",
                  {{"-g, --groupName <group>", "consumer group (required)"}, kBroker, kCluster,
                   {"-r, --removeOffset <bool>", "also remove its offsets (default false)", kBool}},
                  &deleteSubGroup});
VerbRegistrar r3({"consumerProgress", "Query consumers's progress, speed",
                  {{"-g, --groupName <group>", "consumer group (default: every group, one line each)"},
                   {"-t, --topic <topic>", "only this topic"}},
                  &consumerProgress});
VerbRegistrar r4({"consumerConnection", "Query consumer's socket connection, client version and subscription",
                  {{"-g, --consumerGroup <group>", "consumer group (required)"}}, &consumerConnection});
VerbRegistrar r5({"producerConnection", "Query producer's socket connection and client version",
                  {{"-g, --producerGroup <group>", "producer group (required)"},
                   {"-t, --topic <topic>", "a topic it sends to (required)"}},
                  &producerConnection});
VerbRegistrar r5a({"producer", "Query producer's instances, connection, status, etc.",
                   {{"-b, --broker <addr>", "broker address (required)"}}, &producer});
VerbRegistrar r6({"resetOffsetByTime", "Reset consumer offset by timestamp (online consumers are told to follow)",
                  {{"-g, --group <group>", "consumer group (required)"}, {"-t, --topic <topic>", "topic (required)"},
                   {"-s, --timestamp <when>", "now | epoch ms | yyyy-MM-dd#HH:mm:ss:SSS (required)"},
                   {"-f, --force <bool>", "also move offsets forward (default true)", kBool}},
                  &resetOffsetByTime});
VerbRegistrar r7({"cloneGroupOffset", "clone offset from other group.",
                  {{"-s, --srcGroup <group>", "set source consumer group (required)"},
                   {"-d, --destGroup <group>", "set destination consumer group (required)"},
                   {"-t, --topic <topic>", "set the topic (required)"},
                   {"-o, --offline <bool>", "the group or the topic is offline (accepted, unused: as mqadmin)", kBool}},
                  &cloneGroupOffset});
VerbRegistrar r9({"skipAccumulatedMessage", "Skip all messages that are accumulated (not consumed) currently",
                  {{"-g, --group <group>", "set the consumer group (required)"},
                   {"-t, --topic <topic>", "set the topic (required)"},
                   {"-f, --force <bool>", "set the force rollback by timestamp switch[true|false] (default true)", kBool}},
                  &skipAccumulatedMessage});
VerbRegistrar r8({"getConsumerConfig", "Get consumer config by subscription group name!",
                  {{"-g, --groupName <group>", "subscription group name (required)"}}, &getConsumerConfig});

}  // namespace
}  // namespace rmq::admin
