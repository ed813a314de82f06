// Topic verbs: updateTopic, updateTopicPerm, deleteTopic, topicList, topicRoute, topicStatus,
// topicClusterList.
#include <fmt/format.h>

#include "common/json.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

std::string permName(int32_t perm) {
  return fmt::format("{}{}{}", perm & 4 ? 'R' : '-', perm & 2 ? 'W' : '-', perm & 1 ? 'X' : '-');
}

// TopicConfig.toString(), as mqadmin prints it after a change.
std::string topicConfigText(const client::TopicConfigSpec& spec) {
  return fmt::format("TopicConfig [topicName={}, readQueueNums={}, writeQueueNums={}, perm={}, topicFilterType={}, "
                     "topicSysFlag={}, order={}]",
                     spec.topicName, spec.readQueueNums, spec.writeQueueNums, permName(spec.perm),
                     spec.topicFilterType, spec.topicSysFlag, spec.order);
}

bool validPerm(int64_t perm) { return perm >= 0 && perm <= 7; }

int updateTopic(VerbContext& ctx) {
  client::TopicConfigSpec spec;
  spec.topicName = ctx.required({"t", "topic"});
  spec.readQueueNums = static_cast<int32_t>(ctx.args.getInt({"r", "readQueueNums"}, 8));
  spec.writeQueueNums = static_cast<int32_t>(ctx.args.getInt({"w", "writeQueueNums"}, 8));
  spec.perm = static_cast<int32_t>(ctx.args.getInt({"p", "perm"}, 6));
  spec.order = boolOption(ctx, {"o", "order"}, false);
  spec.attributes = ctx.args.get({"a", "attributes"}, "");
  requireBrokerOrCluster(ctx);
  if (spec.readQueueNums < 1 || spec.writeQueueNums < 1) ctx.usageError("queue numbers must be >= 1");
  if (!validPerm(spec.perm)) ctx.usageError("-p perm must be 0..7 (2 W, 4 R, 6 RW)");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto done = admin.run(admin.asyncCreateTopic(spec, ctx.args.get({"c", "clusterName"}, ""),
                                               ctx.args.get({"b", "brokerAddr"}, "")));
  if (!done) return ctx.fail(done.error());
  for (auto& addr : *done) ctx.report.line(fmt::format("create topic to {} success.", addr));
  ctx.report.line(topicConfigText(spec));
  return 0;
}

// The name of the route's broker whose master is `addr` (nullopt: no such master).
std::optional<std::string> masterBrokerName(const client::TopicRouteData& route, const std::string& addr) {
  for (auto& b : route.brokerDatas) {
    auto it = b.brokerAddrs.find(client::kMasterId);
    if (it != b.brokerAddrs.end() && it->second == addr) return b.brokerName;
  }
  return std::nullopt;
}

// mqadmin updateTopicPerm: the topic's queue numbers and sysFlag from its route (first queue
// data), the new perm, written to -b (a master of the route) or to every master of -c.
int updateTopicPerm(VerbContext& ctx) {
  client::TopicConfigSpec spec;
  spec.topicName = ctx.required({"t", "topic"});
  std::string permText = ctx.required({"p", "perm"});
  int64_t perm = ctx.args.getInt({"p", "perm"}, -1);
  if (!permText.empty() && !validPerm(perm)) ctx.usageError("-p perm must be 0..7 (2 W, 4 R, 6 RW)");
  requireBrokerOrCluster(ctx);
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto route = admin.run(admin.asyncTopicRoute(spec.topicName));
  if (!route) return ctx.fail(route.error());
  if (route->queueDatas.empty()) return ctx.fail(fmt::format("topic [{}] has no queue data", spec.topicName));
  const auto& first = route->queueDatas.front();
  spec.readQueueNums = first.readQueueNums;
  spec.writeQueueNums = first.writeQueueNums;
  spec.topicSysFlag = first.topicSysFlag;
  spec.perm = static_cast<int32_t>(perm);
  if (auto addr = ctx.args.get({"b", "brokerAddr"}); addr && !addr->empty()) {
    auto name = masterBrokerName(*route, *addr);
    if (!name) return ctx.fail("updateTopicPerm error broker not exit or broker is not master!.");
    int32_t oldPerm = 0;
    for (auto& q : route->queueDatas)
      if (q.brokerName == *name) oldPerm = q.perm;
    if (oldPerm == spec.perm) {
      ctx.report.line("new perm equals to the old one!");
      return 0;
    }
    if (auto r = admin.run(admin.asyncCreateTopicOnBroker(*addr, spec)); !r) return failAt(ctx, *addr, r.error());
    ctx.report.line(fmt::format("update topic perm from {} to {} in {} success.", oldPerm, spec.perm, *addr));
    ctx.report.line(topicConfigText(spec) + ".");
    return 0;
  }
  return forEachTargetBroker(
      ctx, [&](const std::string& addr) { return admin.asyncCreateTopicOnBroker(addr, spec); },
      [&](const std::string& addr, auto& r, size_t) {
        if (!r) return failAt(ctx, addr, r.error());
        ctx.report.line(fmt::format("update topic perm from {} to {} in {} success.", first.perm, spec.perm, addr));
        return 0;
      });
}

int topicClusterList(VerbContext& ctx) {
  std::string topic = ctx.required({"t", "topic"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto clusters = admin.run(admin.asyncTopicClusters(topic));
  if (!clusters) return ctx.fail(clusters.error());
  for (auto& c : *clusters) ctx.report.line(c);
  return 0;
}

int deleteTopic(VerbContext& ctx) {
  std::string topic = ctx.required({"t", "topic"});
  std::string cluster = ctx.required({"c", "clusterName"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  if (auto r = admin.run(admin.asyncDeleteTopic(topic, cluster)); !r) return ctx.fail(r.error());
  ctx.report.line(fmt::format("delete topic [{}] from cluster [{}] success.", topic, cluster));
  ctx.report.line(fmt::format("delete topic [{}] from NameServer success.", topic));
  return 0;
}

int topicList(VerbContext& ctx) {
  bool withCluster = ctx.args.flag("c") || ctx.args.flag("clusterModel");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto topics = admin.run(admin.asyncTopicList());
  if (!topics) return ctx.fail(topics.error());
  std::sort(topics->begin(), topics->end());
  if (!withCluster) {
    auto& t = ctx.report.table("topics", {"#Topic"});
    for (auto& topic : *topics) t.add({topic});
    return 0;
  }
  // Like mqadmin -c: retry and DLQ topics left out, one line per (topic, consumer group).
  auto& t = ctx.report.table("topics", {"#Cluster Name", "#Topic", "#Consumer Group"});
  std::vector<std::string> listed;
  for (auto& topic : *topics)
    if (topic.rfind("%RETRY%", 0) != 0 && topic.rfind("%DLQ%", 0) != 0) listed.push_back(topic);
  auto routes = runEach(ctx, listed, [&](const std::string& topic) { return admin.asyncTopicRoute(topic); });
  auto consumers = runEach(ctx, listed, [&](const std::string& topic) { return admin.asyncTopicConsumeByWho(topic); });
  for (size_t i = 0; i < listed.size(); ++i) {
    auto& route = routes[i];
    std::string cluster = route && !route->brokerDatas.empty() ? route->brokerDatas[0].cluster : "";
    auto& groups = consumers[i];
    if (!groups || groups->empty()) {
      t.add({cluster, listed[i], ""});
      continue;
    }
    for (auto& group : *groups) t.add({cluster, listed[i], group});
  }
  return 0;
}

// TopicRouteData as mqadmin prints it (its JSON, fields as Java names them).
std::string routeJson(const client::TopicRouteData& r) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("brokerDatas");
  w.StartArray();
  for (auto& b : r.brokerDatas) {
    w.StartObject();
    w.Key("brokerAddrs");
    w.StartObject();
    for (auto& [id, addr] : b.brokerAddrs) { w.Key(std::to_string(id).c_str()); w.String(addr.c_str()); }
    w.EndObject();
    w.Key("brokerName"); w.String(b.brokerName.c_str());
    w.Key("cluster"); w.String(b.cluster.c_str());
    w.EndObject();
  }
  w.EndArray();
  w.Key("filterServerTable"); w.StartObject(); w.EndObject();
  if (r.orderTopicConf) { w.Key("orderTopicConf"); w.String(r.orderTopicConf->c_str()); }
  w.Key("queueDatas");
  w.StartArray();
  for (auto& q : r.queueDatas) {
    w.StartObject();
    w.Key("brokerName"); w.String(q.brokerName.c_str());
    w.Key("perm"); w.Int(q.perm);
    w.Key("readQueueNums"); w.Int(q.readQueueNums);
    w.Key("topicSysFlag"); w.Int(q.topicSysFlag);
    w.Key("writeQueueNums"); w.Int(q.writeQueueNums);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

int topicRoute(VerbContext& ctx) {
  std::string topic = ctx.required({"t", "topic"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto route = admin.run(admin.asyncTopicRoute(topic));
  if (!route) return ctx.fail(route.error());
  ctx.report.json("route", routeJson(*route));
  return 0;
}

int topicStatus(VerbContext& ctx) {
  std::string topic = ctx.required({"t", "topic"});
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto stats = admin.run(admin.asyncTopicStats(topic));
  if (!stats) return ctx.fail(stats.error());
  std::sort(stats->begin(), stats->end(), [](auto& a, auto& b) { return a.queue < b.queue; });
  auto& t = ctx.report.table("queues", {"#Broker Name", "#QID", "#Min Offset", "#Max Offset", "#Last Updated"});
  for (auto& s : *stats)
    t.add({s.queue.brokerName, s.queue.queueId, s.minOffset, s.maxOffset,
           s.lastUpdateTimestamp > 0 ? formatTimestamp(s.lastUpdateTimestamp) : std::string()});
  return 0;
}

const OptionSpec kBroker{"-b, --brokerAddr <addr>", "one broker"};
const OptionSpec kCluster{"-c, --clusterName <name>", "every master of the cluster"};
const OptionSpec kTopic{"-t, --topic <topic>", "topic name (required)"};

VerbRegistrar r1({"updateTopic", "Update or create topic",
                  {kTopic, kBroker, kCluster,
                   {"-r, --readQueueNums <n>", "read queues (default 8)", ValueKind::Integer},
                   {"-w, --writeQueueNums <n>", "write queues (default 8)", ValueKind::Integer},
                   {"-p, --perm <n>", "permission: 2 W, 4 R, 6 RW (default 6)", ValueKind::Integer},
                   {"-o, --order <true|false>", "order topic (default false)", ValueKind::Boolean},
                   {"-a, --attributes <+k=v,...>", "5.x topic attributes, e.g. +message.type=FIFO"}},
                  &updateTopic});
VerbRegistrar r2({"deleteTopic", "Delete topic from broker and NameServer",
                  {kTopic, {"-c, --clusterName <name>", "cluster to delete it from (required)"}},
                  &deleteTopic});
VerbRegistrar r3({"topicList", "Fetch all topic list from name server",
                  {{"-c, --clusterModel", "also print each topic's cluster and consumer groups"}},
                  &topicList});
VerbRegistrar r4({"topicRoute", "Examine topic route info", {kTopic}, &topicRoute});
VerbRegistrar r5({"topicStatus", "Examine topic Status info", {kTopic}, &topicStatus});
VerbRegistrar r6({"updateTopicPerm", "Update topic perm",
                  {kTopic, {"-b, --brokerAddr <addr>", "a master of the topic's route"},
                   {"-c, --clusterName <name>", "every master of the cluster"},
                   {"-p, --perm <n>", "set topic's permission(2|4|6), intro[2:W; 4:R; 6:RW] (required)",
                    ValueKind::Integer}},
                  &updateTopicPerm});
VerbRegistrar r7({"topicClusterList", "get cluster info for topic", {kTopic}, &topicClusterList});

}  // namespace
}  // namespace rmq::admin
