// Export verbs: exportMetadata (user topics and subscription groups of one broker or, summed, of
// a cluster's masters), exportConfigs (each master's main settings and the cluster's size) and
// exportMetrics (each master's runtime figures: disk ratios, TPS, one-day counts, topic/group counts,
// client versions; and the cluster's totals),
// written as pretty JSON files under -f (default /tmp/rocketmq/export), as mqadmin 4.9.8 does.
#include <fmt/format.h>

#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "common/file_write.h"
#include "common/json.h"
#include "common/wall_clock.h"
#include "net/remoting_command.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

const std::string kDefaultExportPath = "/tmp/rocketmq/export";

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

// The masters of a cluster (brokerName -> addr, in name order) and how many slaves it has.
struct ClusterMasters {
  std::vector<std::pair<std::string, std::string>> masters;
  int64_t slaves = 0;
  std::vector<std::string> addrs() const {
    std::vector<std::string> out;
    for (auto& [_, addr] : masters) out.push_back(addr);
    return out;
  }
};

Result<ClusterMasters> clusterMasters(client::AdminClient& admin, const std::string& cluster) {
  auto info = admin.run(admin.asyncClusterInfo());
  if (!info) return info.error();
  if (!info->clusterAddrTable.count(cluster)) return Error{1, fmt::format("cluster [{}] not exist", cluster)};
  ClusterMasters out;
  for (const auto* bd : info->brokersOf(cluster)) {
    if (!bd->masterAddr()) continue;
    out.masters.emplace_back(bd->brokerName, *bd->masterAddr());
    out.slaves += static_cast<int64_t>(bd->brokerAddrs.size()) - 1;
  }
  return out;
}

int exportConfigs(VerbContext& ctx) {
  std::string cluster = ctx.required({"c", "clusterName"});
  std::string dir = ctx.args.get({"f", "filePath"}, kDefaultExportPath);
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto cm = clusterMasters(admin, cluster);
  if (!cm) return ctx.fail(cm.error());
  auto masters = cm->addrs();
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
  w.Key("slaveBrokerSize"); w.Int64(cm->slaves);
  w.EndObject();
  w.EndObject();
  return writeExport(ctx, dir + "/configs.json", prettyJson(std::string(buf.GetString(), buf.GetSize())));
}

// ---- exportMetrics (ExportMetricsCommand) ----

using StringMap = std::map<std::string, std::string>;

std::string valueOr(const StringMap& kv, const std::string& key, std::string dflt = {}) {
  auto it = kv.find(key);
  return it == kv.end() ? dflt : it->second;
}

// What mqadmin reads of one master: runtime stats, config, user topics and groups, and the
// TOPIC_PUT_NUMS stats of the transaction half and schedule topics (absent when the broker has none).
struct MasterMetrics {
  StringMap runtime, config;
  size_t topicCount = 0;
  std::vector<std::string> groups;
  std::optional<client::BrokerStatsData> trans, schedule;
};

// The figures of one master that runtimeQuota and totalData hold.
struct Quota {
  double normalInTps = 0, normalOutTps = 0, transInTps = 0, scheduleInTps = 0;
  int64_t normalOneDayInNum = 0, normalOneDayOutNum = 0, transOneDayInNum = 0, scheduleOneDayInNum = 0;
};

double firstTps(const std::string& triple) {  // "10s 1min 10min" rates: the first one
  try { return std::stod(triple.substr(0, triple.find(' '))); } catch (...) { return 0; }
}
int64_t counter(const StringMap& kv, const std::string& key) {
  try { return std::stoll(valueOr(kv, key, "0")); } catch (...) { return 0; }
}

Quota quotaOf(const MasterMetrics& m) {
  Quota q;
  q.normalInTps = firstTps(valueOr(m.runtime, "putTps"));
  q.normalOutTps = firstTps(valueOr(m.runtime, "getTransferedTps"));
  q.transInTps = m.trans ? m.trans->statsMinute.tps : 0.0;
  q.scheduleInTps = m.schedule ? m.schedule->statsMinute.tps : 0.0;
  q.normalOneDayInNum = counter(m.runtime, "msgPutTotalTodayMorning") - counter(m.runtime, "msgPutTotalYesterdayMorning");
  q.normalOneDayOutNum = counter(m.runtime, "msgGetTotalTodayMorning") - counter(m.runtime, "msgGetTotalYesterdayMorning");
  q.transOneDayInNum = m.trans ? m.trans->sum24Hours() : 0;
  q.scheduleOneDayInNum = m.schedule ? m.schedule->sum24Hours() : 0;
  return q;
}

void writeOneDayNums(json::Writer& w, const Quota& q) {
  w.StartObject();
  w.Key("normalOneDayInNum"); w.Int64(q.normalOneDayInNum);
  w.Key("normalOneDayOutNum"); w.Int64(q.normalOneDayOutNum);
  w.Key("scheduleOneDayInNum"); w.Int64(q.scheduleOneDayInNum);
  w.Key("transOneDayInNum"); w.Int64(q.transOneDayInNum);
  w.EndObject();
}

// A string member only when present (fastjson leaves null map values out).
void optionalString(json::Writer& w, const char* key, const StringMap& kv, const std::string& from) {
  if (auto it = kv.find(from); it != kv.end()) { w.Key(key); w.String(it->second.c_str()); }
}

void writeBrokerReport(json::Writer& w, const MasterMetrics& m, const Quota& q, const std::set<std::string>& clients) {
  w.StartObject();
  w.Key("runtimeEnv");
  w.StartObject();
  optionalString(w, "cpuNum", m.config, "clientCallbackExecutorThreads");
  optionalString(w, "totalMemKBytes", m.runtime, "totalMemKBytes");
  w.EndObject();
  w.Key("runtimeQuota");
  w.StartObject();
  w.Key("diskRatio");
  w.StartObject();
  optionalString(w, "commitLogDiskRatio", m.runtime, "commitLogDiskRatio");
  optionalString(w, "consumeQueueDiskRatio", m.runtime, "consumeQueueDiskRatio");
  w.EndObject();
  w.Key("groupSize"); w.Int64(static_cast<int64_t>(m.groups.size()));
  optionalString(w, "messageAverageSize", m.runtime, "putMessageAverageSize");
  w.Key("oneDayNum");
  writeOneDayNums(w, q);
  w.Key("topicSize"); w.Int64(static_cast<int64_t>(m.topicCount));
  w.Key("tps");
  w.StartObject();
  w.Key("normalInTps"); w.Double(q.normalInTps);
  w.Key("normalOutTps"); w.Double(q.normalOutTps);
  w.Key("scheduleInTps"); w.Double(q.scheduleInTps);
  w.Key("transInTps"); w.Double(q.transInTps);
  w.EndObject();
  w.EndObject();
  w.Key("runtimeVersion");
  w.StartObject();
  w.Key("clientInfo");
  w.StartArray();
  for (auto& c : clients) w.String(c.c_str());
  w.EndArray();
  w.Key("rocketmqVersion"); w.String(mqVersionDesc(net::kCurrentVersion).c_str());
  w.EndObject();
  w.EndObject();
}

void writeTotals(json::Writer& w, const Quota& total) {
  w.StartObject();
  w.Key("totalOneDayNum");
  writeOneDayNums(w, total);
  w.Key("totalTps");
  w.StartObject();
  w.Key("totalNormalInTps"); w.Double(total.normalInTps);
  w.Key("totalNormalOutTps"); w.Double(total.normalOutTps);
  w.Key("totalScheduleInTps"); w.Double(total.scheduleInTps);
  w.Key("totalTransInTps"); w.Double(total.transInTps);
  w.EndObject();
  w.EndObject();
}

// Reads what exportMetrics needs of every master at once; an error names the master that failed.
Result<std::vector<MasterMetrics>> readMasters(VerbContext& ctx, const std::vector<std::string>& addrs) {
  auto& admin = ctx.admin();
  auto runtime = runEach(ctx, addrs, [&](const std::string& a) { return admin.asyncBrokerRuntimeInfo(a); });
  auto config = runEach(ctx, addrs, [&](const std::string& a) { return admin.asyncBrokerConfig(a); });
  auto topics = runEach(ctx, addrs, [&](const std::string& a) { return admin.asyncUserTopicConfigs(a, false); });
  auto groups = runEach(ctx, addrs, [&](const std::string& a) { return admin.asyncUserSubscriptionGroups(a); });
  auto trans = runEach(ctx, addrs, [&](const std::string& a) {
    return admin.asyncViewBrokerStatsData(a, "TOPIC_PUT_NUMS", "RMQ_SYS_TRANS_HALF_TOPIC");
  });
  auto schedule = runEach(ctx, addrs, [&](const std::string& a) {
    return admin.asyncViewBrokerStatsData(a, "TOPIC_PUT_NUMS", "SCHEDULE_TOPIC_XXXX");
  });
  std::vector<MasterMetrics> out(addrs.size());
  for (size_t i = 0; i < addrs.size(); ++i) {
    for (const Error* e : {runtime[i] ? nullptr : &runtime[i].error(), config[i] ? nullptr : &config[i].error(),
                           topics[i] ? nullptr : &topics[i].error(), groups[i] ? nullptr : &groups[i].error()})
      if (e) return Error{e->code, fmt::format("{}: {}", addrs[i], e->message)};
    out[i].runtime = std::move(*runtime[i]);
    out[i].config = std::move(*config[i]);
    out[i].topicCount = topics[i]->size();
    for (auto& g : *groups[i]) out[i].groups.push_back(g.groupName);
    if (trans[i]) out[i].trans = *trans[i];
    if (schedule[i]) out[i].schedule = *schedule[i];
  }
  return out;
}

// "LANGUAGE%V4_9_7" of every online consumer of each group (getRuntimeVersion's clientInfo); a
// group that is not online adds nothing.
std::map<std::string, std::set<std::string>> clientInfoByGroup(VerbContext& ctx, const std::set<std::string>& groups) {
  auto& admin = ctx.admin();
  std::vector<std::string> names(groups.begin(), groups.end());
  auto conns = runEach(ctx, names, [&](const std::string& g) { return admin.asyncConsumerConnection(g); });
  std::map<std::string, std::set<std::string>> out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (!conns[i]) continue;
    for (auto& c : conns[i]->connections) out[names[i]].insert(c.language + "%" + mqVersionDesc(c.version));
  }
  return out;
}

int exportMetrics(VerbContext& ctx) {
  std::string cluster = ctx.required({"c", "clusterName"});
  std::string dir = ctx.args.get({"f", "filePath"}, kDefaultExportPath);
  if (ctx.badUsage()) return 2;
  auto cm = clusterMasters(ctx.admin(), cluster);
  if (!cm) return ctx.fail(cm.error());
  auto metrics = readMasters(ctx, cm->addrs());
  if (!metrics) return ctx.fail(metrics.error());
  std::set<std::string> allGroups;
  for (auto& m : *metrics) allGroups.insert(m.groups.begin(), m.groups.end());
  auto clients = clientInfoByGroup(ctx, allGroups);
  json::Buffer buf;
  json::Writer w(buf);
  Quota total;
  w.StartObject();
  w.Key("evaluateReport");
  w.StartObject();
  for (size_t i = 0; i < metrics->size(); ++i) {
    const auto& m = (*metrics)[i];
    Quota q = quotaOf(m);
    total.normalInTps += q.normalInTps, total.normalOutTps += q.normalOutTps;
    total.transInTps += q.transInTps, total.scheduleInTps += q.scheduleInTps;
    total.normalOneDayInNum += q.normalOneDayInNum, total.normalOneDayOutNum += q.normalOneDayOutNum;
    total.transOneDayInNum += q.transOneDayInNum, total.scheduleOneDayInNum += q.scheduleOneDayInNum;
    std::set<std::string> brokerClients;
    for (auto& g : m.groups)
      if (auto it = clients.find(g); it != clients.end()) brokerClients.insert(it->second.begin(), it->second.end());
    w.Key(cm->masters[i].first.c_str());
    writeBrokerReport(w, m, q, brokerClients);
  }
  w.EndObject();
  w.Key("totalData");
  writeTotals(w, total);
  w.EndObject();
  return writeExport(ctx, dir + "/metrics.json", prettyJson(std::string(buf.GetString(), buf.GetSize())));
}

const OptionSpec kFilePath{"-f, --filePath <dir>", "export folder | default /tmp/rocketmq/export"};

VerbRegistrar r1({"exportMetadata", "export metadata",
                  {{"-c, --clusterName <name>", "choose a cluster to export"},
                   {"-b, --brokerAddr <addr>", "choose a broker to export"}, kFilePath,
                   {"-t, --topic", "only export topic metadata"},
                   {"-g, --subscriptionGroup", "only export subscriptionGroup metadata"},
                   {"-s, --specialTopic", "need retryTopic and dlqTopic"}},
                  &exportMetadata});
VerbRegistrar r3({"exportMetrics", "export metrics",
                  {{"-c, --clusterName <name>", "choose a cluster to export (required)"},
                   {"-f, --filePath <dir>", "export metrics.json path | default /tmp/rocketmq/export"}},
                  &exportMetrics});
VerbRegistrar r2({"exportConfigs", "export configs",
                  {{"-c, --clusterName <name>", "choose a cluster to export (required)"}, kFilePath}, &exportConfigs});

}  // namespace
}  // namespace rmq::admin
