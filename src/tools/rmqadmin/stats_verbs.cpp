// Statistics verbs: statsAll (mqadmin's StatsAllSubCommand) over VIEW_BROKER_STATS_DATA.
#include <algorithm>

#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

struct Traffic {
  double tps = 0;         // statsMinute.tps summed over the masters
  int64_t sum24h = 0;     // compute24HourSum summed over the masters
};

// One stats item summed over the masters of `route`; a master without the item adds nothing
// (as mqadmin, which ignores each call's failure).
Traffic trafficOf(client::AdminClient& admin, const client::TopicRouteData& route, const std::string& statsName,
                  const std::string& statsKey) {
  Traffic t;
  for (const auto& bd : route.brokerDatas) {
    const std::string* master = bd.masterAddr();
    if (!master) continue;
    auto data = admin.run(admin.asyncViewBrokerStatsData(*master, statsName, statsKey));
    if (!data) continue;
    t.tps += data->statsMinute.tps;
    t.sum24h += data->sum24Hours();
  }
  return t;
}

// StatsAllSubCommand.printTopicDetail: one row per consuming group, or one NO_CONSUMER row.
void topicRows(VerbContext& ctx, Table& table, const std::string& topic, bool activeOnly) {
  auto& admin = ctx.admin();
  auto route = admin.run(admin.asyncTopicRoute(topic));
  if (!route) return;
  Traffic in = trafficOf(admin, *route, "TOPIC_PUT_NUMS", topic);
  auto groups = admin.run(admin.asyncTopicConsumeByWho(topic));
  if (!groups || groups->empty()) {
    if (!activeOnly || in.sum24h > 0) table.add({topic, "", int64_t{0}, Cell(in.tps, 2), "", in.sum24h, "NO_CONSUMER"});
    return;
  }
  for (const auto& group : *groups) {
    Traffic out = trafficOf(admin, *route, "GROUP_GET_NUMS", topic + "@" + group);
    int64_t accumulation = 0;
    if (auto stats = admin.run(admin.asyncConsumeStats(group, topic)))
      accumulation = std::max<int64_t>(0, stats->diffTotal());
    if (activeOnly && in.sum24h <= 0 && out.sum24h <= 0) continue;
    table.add({topic, group, accumulation, Cell(in.tps, 2), Cell(out.tps, 2), in.sum24h, out.sum24h});
  }
}

int statsAll(VerbContext& ctx) {
  bool activeOnly = ctx.args.flag("a");
  std::string selected = ctx.args.get({"t", "topic"}).value_or("");
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  auto topics = admin.run(admin.asyncTopicList());
  if (!topics) return ctx.fail(topics.error());
  auto& table = ctx.report.table("stats", {"#Topic", "#Consumer Group", "#Accumulation", "#InTPS", "#OutTPS",
                                           "#InMsg24Hour", "#OutMsg24Hour"});
  for (const auto& topic : *topics) {
    if (client::isRetryTopic(topic) || topic.rfind("%DLQ%", 0) == 0) continue;
    if (!selected.empty() && topic != selected) continue;
    topicRows(ctx, table, topic, activeOnly);
  }
  return 0;
}

VerbRegistrar r1({"statsAll", "Topic and Consumer tps stats",
                  {{"-a, --activeTopic", "print active topic only"}, {"-t, --topic <topic>", "print select topic only"}},
                  &statsAll});

}  // namespace
}  // namespace rmq::admin
