// Topic verbs: updateTopic, deleteTopic, topicList, topicRoute, topicStatus.
#include <fmt/format.h>

#include "common/json.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

std::string permName(int32_t perm) {
  return fmt::format("{}{}{}", perm & 4 ? 'R' : '-', perm & 2 ? 'W' : '-', perm & 1 ? 'X' : '-');
}

int updateTopic(VerbContext& ctx) {
  client::TopicConfigSpec spec;
  spec.topicName = ctx.required({"t", "topic"});
  spec.readQueueNums = static_cast<int32_t>(ctx.args.getInt({"r", "readQueueNums"}, 8));
  spec.writeQueueNums = static_cast<int32_t>(ctx.args.getInt({"w", "writeQueueNums"}, 8));
  spec.perm = static_cast<int32_t>(ctx.args.getInt({"p", "perm"}, 6));
  spec.order = boolOption(ctx, {"o", "order"}, false);
  requireBrokerOrCluster(ctx);
  if (spec.readQueueNums < 1 || spec.writeQueueNums < 1) ctx.usageError("queue numbers must be >= 1");
  if (spec.perm < 0 || spec.perm > 7) ctx.usageError("-p perm must be 0..7 (2 W, 4 R, 6 RW)");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto done = admin.run(admin.asyncCreateTopic(spec, ctx.args.get({"c", "clusterName"}, ""),
                                               ctx.args.get({"b", "brokerAddr"}, "")));
  if (!done) return ctx.fail(done.error());
  for (auto& addr : *done) ctx.report.line(fmt::format("create topic to {} success.", addr));
  ctx.report.line(fmt::format("TopicConfig [topicName={}, readQueueNums={}, writeQueueNums={}, perm={}, "
                              "topicFilterType={}, topicSysFlag={}, order={}]",
                              spec.topicName, spec.readQueueNums, spec.writeQueueNums, permName(spec.perm),
                              spec.topicFilterType, spec.topicSysFlag, spec.order));
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
  for (auto& topic : *topics) {
    if (topic.rfind("%RETRY%", 0) == 0 || topic.rfind("%DLQ%", 0) == 0) continue;
    auto route = admin.run(admin.asyncTopicRoute(topic));
    std::string cluster = route && !route->brokerDatas.empty() ? route->brokerDatas[0].cluster : "";
    auto groups = admin.run(admin.asyncTopicConsumeByWho(topic));
    if (!groups || groups->empty()) {
      t.add({cluster, topic, ""});
      continue;
    }
    for (auto& group : *groups) t.add({cluster, topic, group});
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
                   {"-o, --order <true|false>", "order topic (default false)", ValueKind::Boolean}},
                  &updateTopic});
VerbRegistrar r2({"deleteTopic", "Delete topic from broker and NameServer",
                  {kTopic, {"-c, --clusterName <name>", "cluster to delete it from (required)"}},
                  &deleteTopic});
VerbRegistrar r3({"topicList", "Fetch all topic list from name server",
                  {{"-c, --clusterModel", "also print each topic's cluster and consumer groups"}},
                  &topicList});
VerbRegistrar r4({"topicRoute", "Examine topic route info", {kTopic}, &topicRoute});
VerbRegistrar r5({"topicStatus", "Examine topic Status info", {kTopic}, &topicStatus});

}  // namespace
}  // namespace rmq::admin
