// Cluster and broker verbs: clusterList, brokerStatus, getBrokerConfig, updateBrokerConfig,
// brokerConsumeStats, and the maintenance requests cleanExpiredCQ, cleanUnusedTopic,
// deleteExpiredCommitLog. Verbs over several brokers ask them all at once (runEach).
#include <fmt/format.h>

#include <chrono>
#include <sstream>

#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

std::string get(const std::map<std::string, std::string>& kv, const std::string& key, std::string dflt = "") {
  auto it = kv.find(key);
  return it == kv.end() ? dflt : it->second;
}

// First number of a space-separated value like putTps "12.5 10.1 9.8".
double firstNumber(const std::string& text) {
  std::istringstream in(text);
  double d = 0;
  in >> d;
  return in ? d : 0;
}

int clusterList(VerbContext& ctx) {
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto info = admin.run(admin.asyncClusterInfo());
  if (!info) return ctx.fail(info.error());
  auto& t = ctx.report.table("brokers", {"#Cluster Name", "#Broker Name", "#BID", "#Addr", "#Version", "#InTPS(LOAD)",
                                         "#OutTPS(LOAD)", "#PCWait(ms)", "#Hour", "#SPACE"});
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count();
  struct Node {
    std::string cluster, name;
    int64_t id;
    std::string addr;
  };
  std::vector<Node> nodes;
  for (auto& [cluster, names] : info->clusterAddrTable)
    for (auto& name : names) {
      auto bd = info->brokerAddrTable.find(name);
      if (bd == info->brokerAddrTable.end()) continue;
      for (auto& [id, addr] : bd->second.brokerAddrs) nodes.push_back({cluster, name, id, addr});
    }
  std::vector<std::string> addrs;
  for (auto& n : nodes) addrs.push_back(n.addr);
  auto runtimes = runEach(ctx, addrs, [&](const std::string& addr) { return admin.asyncBrokerRuntimeInfo(addr); });
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    auto& rt = runtimes[i];
    if (!rt) {
      t.add({n.cluster, n.name, n.id, n.addr, "unreachable: " + rt.error().message, "", "", "", "", ""});
      continue;
    }
    int64_t earliest = std::atoll(get(*rt, "earliestMessageTimeStamp", "0").c_str());
    double hours = earliest > 0 ? static_cast<double>(now - earliest) / 3600000.0 : 0;
    t.add({n.cluster, n.name, n.id, n.addr, get(*rt, "brokerVersionDesc"), Cell(firstNumber(get(*rt, "putTps")), 2),
           Cell(firstNumber(get(*rt, "getTransferedTps")), 2), get(*rt, "pageCacheLockTimeMills", "0"), Cell(hours, 2),
           get(*rt, "commitLogDiskRatio", "-")});
  }
  return 0;
}

int brokerStatus(VerbContext& ctx) {
  auto call = [&](const std::string& addr) { return ctx.admin().asyncBrokerRuntimeInfo(addr); };
  return forEachTargetBroker(ctx, call, [&](const std::string& addr, auto& rt, size_t count) {
    if (!rt) return failAt(ctx, addr, rt.error());
    std::vector<std::pair<std::string, std::string>> items(rt->begin(), rt->end());  // map: sorted by key
    if (count > 1) ctx.report.line(fmt::format("============{}============", addr));
    ctx.report.kv(count > 1 ? addr : "status", std::move(items), " : ");
    return 0;
  });
}

int getBrokerConfig(VerbContext& ctx) {
  auto call = [&](const std::string& addr) { return ctx.admin().asyncBrokerConfig(addr); };
  return forEachTargetBroker(ctx, call, [&](const std::string& addr, auto& cfg, size_t count) {
    if (!cfg) return failAt(ctx, addr, cfg.error());
    ctx.report.line(fmt::format("============{}============", addr));
    ctx.report.kv(count > 1 ? addr : "config", {cfg->begin(), cfg->end()}, " = ");
    return 0;
  });
}

int updateBrokerConfig(VerbContext& ctx) {
  std::string key = ctx.required({"k", "key"});
  auto value = ctx.args.get({"v", "value"});
  if (!value) ctx.usageError("missing option -v");
  std::map<std::string, std::string> kv;
  if (value) kv[key] = *value;
  auto call = [&](const std::string& addr) { return ctx.admin().asyncUpdateBrokerConfig(addr, kv); };
  return forEachTargetBroker(ctx, call, [&](const std::string& addr, auto& r, size_t) {
    if (!r) return ctx.fail(fmt::format("update broker config failed, {}: {}", addr, r.error().message), r.error().code);
    ctx.report.line(fmt::format("update broker config success, {}", addr));
    return 0;
  });
}

// mqadmin brokerConsumeStats: every (topic, group, queue) the broker's online consumers subscribe
// (order topics with -o true), lag at least -l, queues never consumed left out.
int brokerConsumeStats(VerbContext& ctx) {
  std::string addr = ctx.required({"b", "brokerAddr"});
  std::chrono::milliseconds timeout(ctx.args.getInt({"t", "timeoutMillis"}, 50000));
  int64_t diffLevel = ctx.args.getInt({"l", "level"}, 0);
  bool isOrder = boolOption(ctx, {"o", "order"}, false);
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto stats = admin.run(admin.asyncBrokerConsumeStats(addr, isOrder, timeout));
  if (!stats) return failAt(ctx, addr, stats.error());
  auto& t = ctx.report.table("queues", {"#Topic", "#Group", "#Broker Name", "#QID", "#Broker Offset",
                                        "#Consumer Offset", "#Diff", "#LastTime"});
  for (auto& g : stats->groups)
    for (auto& e : g.stats.offsets) {
      int64_t diff = e.brokerOffset - e.consumerOffset;
      if (diff < diffLevel || e.lastTimestamp <= 0) continue;
      t.add({e.queue.topic, g.group, e.queue.brokerName, e.queue.queueId, e.brokerOffset, e.consumerOffset, diff,
             formatTimestamp(e.lastTimestamp).substr(0, 19)});
    }
  ctx.report.line("");
  ctx.report.kv("summary", {{"Diff Total", std::to_string(stats->totalDiff)}}, ": ", false);
  return 0;
}

using BrokerOperation = asio::awaitable<Result<void>> (client::AdminClient::*)(std::string);

// cleanExpiredCQ / cleanUnusedTopic / deleteExpiredCommitLog: -b one broker, else every node
// (masters and slaves) of -c, or of every cluster without -c, all at once. Prints "success", or
// "false" and exits 1 when a broker refused or did not answer.
int onEveryBroker(VerbContext& ctx, BrokerOperation op) {
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  std::vector<std::string> addrs;
  if (auto b = ctx.args.get({"b", "brokerAddr"}); b && !b->empty()) {
    addrs.push_back(*b);
  } else {
    auto all = admin.run(admin.asyncBrokerAddrs(ctx.args.get({"c", "cluster"}, "")));
    if (!all) return ctx.fail(all.error());
    addrs = std::move(*all);
  }
  auto answers = runEach(ctx, addrs, [&](const std::string& addr) { return (admin.*op)(addr); });
  for (size_t i = 0; i < addrs.size(); ++i)
    if (!answers[i]) {
      ctx.report.line("false");
      return failAt(ctx, addrs[i], answers[i].error());
    }
  ctx.report.line("success");
  return 0;
}

int cleanExpiredCQ(VerbContext& ctx) { return onEveryBroker(ctx, &client::AdminClient::asyncCleanExpiredConsumeQueue); }
int cleanUnusedTopic(VerbContext& ctx) { return onEveryBroker(ctx, &client::AdminClient::asyncCleanUnusedTopic); }
int deleteExpiredCommitLog(VerbContext& ctx) {
  return onEveryBroker(ctx, &client::AdminClient::asyncDeleteExpiredCommitLog);
}

const OptionSpec kBroker{"-b, --brokerAddr <addr>", "one broker"};
const OptionSpec kCluster{"-c, --clusterName <name>", "every master of the cluster"};

VerbRegistrar r1({"clusterList", "List all of clusters", {}, &clusterList});
VerbRegistrar r2({"brokerStatus", "Fetch broker runtime status data", {kBroker, kCluster}, &brokerStatus});
VerbRegistrar r3({"getBrokerConfig", "Get broker config by cluster or special broker", {kBroker, kCluster},
                  &getBrokerConfig});
VerbRegistrar r4({"updateBrokerConfig", "Update broker's config",
                  {kBroker, kCluster, {"-k, --key <key>", "config key (required)"},
                   {"-v, --value <value>", "new value (required)"}},
                  &updateBrokerConfig});
VerbRegistrar r5({"brokerConsumeStats", "Fetch broker consume stats data",
                  {{"-b, --brokerAddr <addr>", "Broker address (required)"},
                   {"-t, --timeoutMillis <ms>", "request timeout Millis (default 50000)", ValueKind::Integer},
                   {"-l, --level <n>", "threshold of print diff (default 0)", ValueKind::Integer},
                   {"-o, --order <bool>", "order topic (default false)", ValueKind::Boolean}},
                  &brokerConsumeStats});
const OptionSpec kMaintenanceBroker{"-b, --brokerAddr <addr>", "Broker address"};
const OptionSpec kMaintenanceCluster{"-c, --cluster <name>", "clustername (default: every cluster)"};
VerbRegistrar r6({"cleanExpiredCQ", "Clean expired ConsumeQueue on broker.", {kMaintenanceBroker, kMaintenanceCluster},
                  &cleanExpiredCQ});
VerbRegistrar r7({"cleanUnusedTopic", "Clean unused topic on broker.", {kMaintenanceBroker, kMaintenanceCluster},
                  &cleanUnusedTopic});
VerbRegistrar r8({"deleteExpiredCommitLog", "Delete expired CommitLog files", {kMaintenanceBroker, kMaintenanceCluster},
                  &deleteExpiredCommitLog});

}  // namespace
}  // namespace rmq::admin
