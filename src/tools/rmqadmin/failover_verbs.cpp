// Failover verbs (rmqnode's own; brokers with failoverEnable, src/roles/broker/failover):
// failoverStatus shows each group's master, epoch, in-sync set and every replica's lag;
// failoverSwitch hands a group's mastership to a named slave (planned switchover: the master stops
// taking sends, waits until the slave has its whole commit log, then switches: no loss, ASYNC_MASTER
// included).
#include <fmt/format.h>

#include "common/json.h"
#include "common/json_fields.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

struct Member {
  std::string group, addr, role;
  int64_t brokerId = 0, epoch = 0, end = 0;
  std::vector<int64_t> inSync;  // as the broker read the group's state
  int64_t masterId = -1;
};

std::optional<Member> parseStatus(const std::string& addr, const std::string& text) {
  rapidjson::Document doc;
  if (!json::parse(text, doc).ok() || !doc.IsObject()) return std::nullopt;
  Member m;
  m.addr = addr;
  m.group = json::stringOr(doc, "group");
  m.role = json::stringOr(doc, "role");
  m.brokerId = json::intOr(doc, "brokerId");
  m.epoch = json::intOr(doc, "epoch");
  m.end = json::intOr(doc, "commitLogMaxOffset");
  if (auto it = doc.FindMember("state"); it != doc.MemberEnd() && it->value.IsObject()) {
    m.masterId = json::intOr(it->value, "masterId", -1);
    if (auto s = it->value.FindMember("inSync"); s != it->value.MemberEnd() && s->value.IsArray())
      for (auto& v : s->value.GetArray())
        if (v.IsInt64()) m.inSync.push_back(v.GetInt64());
  }
  return m;
}

int failoverStatus(VerbContext& ctx) {
  std::string cluster = ctx.args.get({"c", "clusterName"}, "");
  std::string brokerName = ctx.args.get({"b", "brokerName"}, "");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto info = admin.run(admin.asyncClusterInfo());
  if (!info) return ctx.fail(info.error());
  auto& t = ctx.report.table("failover", {"#Broker Name", "#BID", "#Addr", "#Role", "#Epoch", "#InSync", "#CommitLogEnd",
                                          "#Lag(bytes)"});
  int asked = 0;
  for (const auto* b : info->brokersOf(cluster)) {
    if (!brokerName.empty() && b->brokerName != brokerName) continue;
    std::vector<Member> members;
    for (auto& [id, addr] : b->brokerAddrs) {
      ++asked;
      auto text = admin.run(admin.asyncFailoverStatus(addr));
      if (!text) {
        t.add({b->brokerName, id, addr, "?", "", "", "", text.error().message});
        continue;
      }
      if (auto m = parseStatus(addr, *text)) members.push_back(std::move(*m));
    }
    int64_t masterEnd = -1;
    std::vector<int64_t> inSync;
    for (auto& m : members)
      if (m.role == "master") {
        masterEnd = m.end;
        inSync = m.inSync;
      }
    for (auto& m : members) {
      bool in = m.role == "master" || std::count(inSync.begin(), inSync.end(), m.brokerId) > 0;
      std::string lag = masterEnd < 0 ? "no master" : std::to_string(std::max<int64_t>(0, masterEnd - m.end));
      t.add({b->brokerName, m.brokerId, m.addr, m.role, m.epoch, in ? "yes" : "no", m.end, lag});
    }
  }
  if (asked == 0) return ctx.fail("no broker found" + (brokerName.empty() ? std::string() : " named " + brokerName));
  return 0;
}

int failoverSwitch(VerbContext& ctx) {
  std::string brokerName = ctx.required({"b", "brokerName"});
  int64_t target = ctx.args.getInt({"i", "brokerId"}, -1);
  int64_t timeoutMs = ctx.args.getInt({"t", "timeoutMillis"}, 10000);
  if (target <= 0) ctx.usageError("-i: the brokerId (> 0) of the slave that takes over is required");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto info = admin.run(admin.asyncClusterInfo());
  if (!info) return ctx.fail(info.error());
  auto it = info->brokerAddrTable.find(brokerName);
  if (it == info->brokerAddrTable.end()) return ctx.fail("no broker named " + brokerName);
  const std::string* master = it->second.masterAddr();
  if (!master) return ctx.fail(brokerName + " has no master registered now");
  auto done = admin.run(admin.asyncFailoverSwitch(*master, target, std::chrono::milliseconds(timeoutMs)));
  if (!done) return ctx.fail(done.error());
  ctx.report.line(fmt::format("switchover of {} from {}: {}", brokerName, *master, *done));
  return 0;
}

VerbRegistrar r1({"failoverStatus",
                  "Show each failover group's master, epoch, in-sync set and the replicas' lag (rmqnode failover).",
                  {{"-c, --clusterName <cluster>", "only this cluster"}, {"-b, --brokerName <name>", "only this group"}},
                  &failoverStatus});
VerbRegistrar r2({"failoverSwitch",
                  "Hand a group's mastership to one of its slaves once it caught up (rmqnode failover, planned).",
                  {{"-b, --brokerName <name>", "the group (required)"},
                   {"-i, --brokerId <id>", "brokerId of the slave that takes over (required)", ValueKind::Integer},
                   {"-t, --timeoutMillis <ms>", "how long the slave may take to catch up (default 10000)",
                    ValueKind::Integer}},
                  &failoverSwitch});

}  // namespace
}  // namespace rmq::admin
