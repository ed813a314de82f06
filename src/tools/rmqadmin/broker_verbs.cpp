// Cluster and broker verbs: clusterList, brokerStatus, getBrokerConfig, updateBrokerConfig.
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
  for (auto& [cluster, names] : info->clusterAddrTable) {
    for (auto& name : names) {
      auto bd = info->brokerAddrTable.find(name);
      if (bd == info->brokerAddrTable.end()) continue;
      for (auto& [id, addr] : bd->second.brokerAddrs) {
        auto rt = admin.run(admin.asyncBrokerRuntimeInfo(addr));
        if (!rt) {
          t.add({cluster, name, id, addr, "unreachable: " + rt.error().message, "", "", "", "", ""});
          continue;
        }
        int64_t earliest = std::atoll(get(*rt, "earliestMessageTimeStamp", "0").c_str());
        double hours = earliest > 0 ? static_cast<double>(now - earliest) / 3600000.0 : 0;
        t.add({cluster, name, id, addr, get(*rt, "brokerVersionDesc"),
               Cell(firstNumber(get(*rt, "putTps")), 2), Cell(firstNumber(get(*rt, "getTransferedTps")), 2),
               get(*rt, "pageCacheLockTimeMills", "0"), Cell(hours, 2),
               get(*rt, "commitLogDiskRatio", "-")});
      }
    }
  }
  return 0;
}

int brokerStatus(VerbContext& ctx) {
  return forEachTargetBroker(ctx, [&](const std::string& addr, size_t count) {
    auto rt = ctx.admin().run(ctx.admin().asyncBrokerRuntimeInfo(addr));
    if (!rt) return ctx.fail(fmt::format("{}: {}", addr, rt.error().message), rt.error().code);
    std::vector<std::pair<std::string, std::string>> items(rt->begin(), rt->end());  // map: sorted by key
    if (count > 1) ctx.report.line(fmt::format("============{}============", addr));
    ctx.report.kv(count > 1 ? addr : "status", std::move(items), " : ");
    return 0;
  });
}

int getBrokerConfig(VerbContext& ctx) {
  return forEachTargetBroker(ctx, [&](const std::string& addr, size_t count) {
    auto cfg = ctx.admin().run(ctx.admin().asyncBrokerConfig(addr));
    if (!cfg) return ctx.fail(fmt::format("{}: {}", addr, cfg.error().message), cfg.error().code);
    ctx.report.line(fmt::format("============{}============", addr));
    ctx.report.kv(count > 1 ? addr : "config", {cfg->begin(), cfg->end()}, " = ");
    return 0;
  });
}

int updateBrokerConfig(VerbContext& ctx) {
  std::string key = ctx.required({"k", "key"});
  auto value = ctx.args.get({"v", "value"});
  if (!value) ctx.usageError("missing option -v");
  return forEachTargetBroker(ctx, [&](const std::string& addr, size_t) {
    auto r = ctx.admin().run(ctx.admin().asyncUpdateBrokerConfig(addr, {{key, *value}}));
    if (!r) return ctx.fail(fmt::format("update broker config failed, {}: {}", addr, r.error().message), r.error().code);
    ctx.report.line(fmt::format("update broker config success, {}", addr));
    return 0;
  });
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

}  // namespace
}  // namespace rmq::admin
