// Export verbs: exportMetadata (user topics and subscription groups of one broker or, summed, of
// a cluster's masters) and exportConfigs (each master's main settings and the cluster's size),
// written as pretty JSON files under -f (default /tmp/rocketmq/export), as mqadmin 4.9.8 does.
#include <fmt/format.h>

#include <chrono>
#include <map>

#include "common/file_write.h"
#include "common/json.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

const std::string kDefaultExportPath = "/tmp/rocketmq/export";

int64_t nowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// TopicConfig as fastjson writes it (keys sorted).
void writeTopicConfig(json::Writer& w, const client::TopicConfigSpec& t) {
  w.StartObject();
  w.Key("order"); w.Bool(t.order);
  w.Key("perm"); w.Int(t.perm);
  w.Key("readQueueNums"); w.Int(t.readQueueNums);
  w.Key("topicFilterType"); w.String(t.topicFilterType.c_str());
  w.Key("topicName"); w.String(t.topicName.c_str());
  w.Key("topicSysFlag"); w.Int(t.topicSysFlag);
  w.Key("writeQueueNums"); w.Int(t.writeQueueNums);
  w.EndObject();
}

struct Metadata {
  std::map<std::string, client::TopicConfigSpec> topics;
  std::map<std::string, SubscriptionGroupConfig> groups;
};

// {"exportTime":..,"subscriptionGroupTable":{..},"topicConfigTable":{..}} with the parts asked for.
std::string metadataJson(const Metadata& m, bool withTopics, bool withGroups, bool withTime) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  if (withTime) { w.Key("exportTime"); w.Int64(nowMillis()); }
  if (withGroups) {
    w.Key("subscriptionGroupTable");
    w.StartObject();
    for (auto& [name, g] : m.groups) {
      w.Key(name.c_str());
      std::string one = g.toJson();
      w.RawValue(one.c_str(), one.size(), rapidjson::kObjectType);
    }
    w.EndObject();
  }
  if (withTopics) {
    w.Key("topicConfigTable");
    w.StartObject();
    for (auto& [name, t] : m.topics) {
      w.Key(name.c_str());
      writeTopicConfig(w, t);
    }
    w.EndObject();
  }
  w.EndObject();
  return prettyJson(std::string(buf.GetString(), buf.GetSize()));
}

int writeExport(VerbContext& ctx, const std::string& path, const std::string& content) {
  if (auto r = replaceFileAtomically(path, content); !r) return ctx.fail(r.error());
  ctx.report.line(fmt::format("export {} success", path));
  return 0;
}

// Adds one broker's user topics and groups; a name already there gets its queue numbers (topics) or
// retry queue numbers (groups) summed, as mqadmin merges a cluster's masters.
void mergeMetadata(Metadata& into, const std::vector<client::TopicConfigSpec>& topics,
                   const std::vector<SubscriptionGroupConfig>& groups) {
  for (auto t : topics) {
    if (auto it = into.topics.find(t.topicName); it != into.topics.end()) {
      t.writeQueueNums += it->second.writeQueueNums;
      t.readQueueNums += it->second.readQueueNums;
    }
    into.topics[t.topicName] = t;
  }
  for (auto g : groups) {
    if (auto it = into.groups.find(g.groupName); it != into.groups.end()) g.retryQueueNums += it->second.retryQueueNums;
    into.groups[g.groupName] = g;
  }
}

int exportMetadata(VerbContext& ctx) {
  std::string dir = ctx.args.get({"f", "filePath"}, kDefaultExportPath);
  bool onlyTopics = ctx.args.flag("t") || ctx.args.flag("topic");
  bool onlyGroups = !onlyTopics && (ctx.args.flag("g") || ctx.args.flag("subscriptionGroup"));
  bool withRetryDlq = ctx.args.flag("s") || ctx.args.flag("specialTopic");
  std::string broker = ctx.args.get({"b", "brokerAddr"}, "");
  std::string cluster = ctx.args.get({"c", "clusterName"}, "");
  if (broker.empty() && cluster.empty()) ctx.usageError("give -b <brokerAddr> or -c <clusterName>");
  if (!broker.empty() && !onlyTopics && !onlyGroups) ctx.usageError("with -b, give -t (topics) or -g (groups)");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  std::vector<std::string> addrs{broker};
  if (broker.empty()) {
    auto masters = brokerTargets(ctx);
    if (!masters) return ctx.fail(masters.error());
    addrs = std::move(*masters);
  }
  auto topics = runEach(ctx, addrs, [&](const std::string& a) { return admin.asyncUserTopicConfigs(a, withRetryDlq); });
  auto groups = runEach(ctx, addrs, [&](const std::string& a) { return admin.asyncUserSubscriptionGroups(a); });
  Metadata merged;
  for (size_t i = 0; i < addrs.size(); ++i) {
    if (!topics[i]) return failAt(ctx, addrs[i], topics[i].error());
    if (!groups[i]) return failAt(ctx, addrs[i], groups[i].error());
    mergeMetadata(merged, *topics[i], *groups[i]);
  }
  std::string file = onlyTopics ? "/topic.json" : onlyGroups ? "/subscriptionGroup.json" : "/metadata.json";
  return writeExport(ctx, dir + file, metadataJson(merged, !onlyGroups, !onlyTopics, broker.empty()));
}

// The broker settings mqadmin's exportConfigs keeps (needBrokerProprties).
const char* const kExportedBrokerKeys[] = {
    "brokerClusterName", "brokerId", "brokerName", "brokerRole", "fileReservedTime", "filterServerNums",
    "flushDiskType", "maxMessageSize", "messageDelayLevel", "msgTraceTopicName", "slaveReadEnable", "traceOn",
    "traceTopicEnable", "useTLS", "autoCreateTopicEnable", "autoCreateSubscriptionGroup"};

int exportConfigs(VerbContext& ctx) {
  std::string cluster = ctx.required({"c", "clusterName"});
  std::string dir = ctx.args.get({"f", "filePath"}, kDefaultExportPath);
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto info = admin.run(admin.asyncClusterInfo());
  if (!info) return ctx.fail(info.error());
  if (!info->clusterAddrTable.count(cluster)) return ctx.fail(fmt::format("cluster [{}] not exist", cluster));
  std::vector<std::string> masters;
  int64_t slaves = 0;
  for (auto& name : info->clusterAddrTable[cluster]) {
    auto bd = info->brokerAddrTable.find(name);
    if (bd == info->brokerAddrTable.end() || !bd->second.masterAddr()) continue;
    masters.push_back(*bd->second.masterAddr());
    slaves += static_cast<int64_t>(bd->second.brokerAddrs.size()) - 1;
  }
  auto configs = runEach(ctx, masters, [&](const std::string& a) { return admin.asyncBrokerConfig(a); });
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("brokerConfigs");
  w.StartObject();
  for (size_t i = 0; i < masters.size(); ++i) {
    if (!configs[i]) return failAt(ctx, masters[i], configs[i].error());
    auto& cfg = *configs[i];
    w.Key(cfg["brokerName"].c_str());
    w.StartObject();
    for (const char* key : kExportedBrokerKeys)
      if (auto it = cfg.find(key); it != cfg.end()) { w.Key(key); w.String(it->second.c_str()); }
    w.EndObject();
  }
  w.EndObject();
  w.Key("clusterScale");
  w.StartObject();
  w.Key("masterBrokerSize"); w.Int64(static_cast<int64_t>(masters.size()));
  w.Key("namesrvSize"); w.Int64(static_cast<int64_t>(admin.nameServers().size()));
  w.Key("slaveBrokerSize"); w.Int64(slaves);
  w.EndObject();
  w.EndObject();
  return writeExport(ctx, dir + "/configs.json", prettyJson(std::string(buf.GetString(), buf.GetSize())));
}

const OptionSpec kFilePath{"-f, --filePath <dir>", "export folder | default /tmp/rocketmq/export"};

VerbRegistrar r1({"exportMetadata", "export metadata",
                  {{"-c, --clusterName <name>", "choose a cluster to export"},
                   {"-b, --brokerAddr <addr>", "choose a broker to export"}, kFilePath,
                   {"-t, --topic", "only export topic metadata"},
                   {"-g, --subscriptionGroup", "only export subscriptionGroup metadata"},
                   {"-s, --specialTopic", "need retryTopic and dlqTopic"}},
                  &exportMetadata});
VerbRegistrar r2({"exportConfigs", "export configs",
                  {{"-c, --clusterName <name>", "choose a cluster to export (required)"}, kFilePath}, &exportConfigs});

}  // namespace
}  // namespace rmq::admin
