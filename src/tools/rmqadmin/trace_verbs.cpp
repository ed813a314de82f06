// queryMsgTraceById (mqadmin's QueryMsgTraceByIdSubCommand): the trace messages of one message id
// (a key query on the trace topic), decoded from Java's trace format (client/trace_data.h) and
// printed as TraceView rows: each Pub record with its own header, then per consumer group its
// SubAfter records. SubBefore and EndTransaction records are decoded but not printed, as mqadmin.
#include <fmt/format.h>

#include <chrono>
#include <map>

#include "client/trace_data.h"
#include "tools/rmqadmin/verb_util.h"

namespace rmq::admin {
namespace {

using client::trace::TraceRecord;
using client::trace::TraceType;

struct TraceRow {  // TraceView's printed fields
  std::string group, clientHost, time, costTime, status;
};

TraceRow rowOf(const TraceRecord& r, const MessageExt& traceMsg) {
  // TraceView.clientHost is the trace message's born host (its IP), not the record's clientHost.
  return {r.groupName, traceMsg.bornHost.ipString(), formatTimestamp(r.timeStamp, false),
          fmt::format("{}ms", r.costTime), r.success ? "success" : "failed"};
}

// "%-10s %-20s %-20s %-20s %-10s %-10s" as mqadmin prints each header and row.
std::string traceLine(std::string_view type, const std::string& group, const std::string& host,
                      const std::string& time, const std::string& cost, const std::string& status) {
  return fmt::format("{:<10} {:<20} {:<20} {:<20} {:<10} {:<10}", type, group, host, time, cost, status);
}

int queryMsgTraceById(VerbContext& ctx) {
  std::string msgId = ctx.required({"i", "msgId"});
  std::string traceTopic = ctx.args.get({"t", "traceTopic"}, std::string(client::trace::kDefaultTraceTopic));
  if (ctx.badUsage()) return 2;
  auto& admin = ctx.admin();
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count();
  auto found = admin.run(admin.asyncQueryMessageByKey(traceTopic, msgId, 64, 0, now));
  if (!found) return ctx.fail(found.error());
  std::vector<TraceRow> pubs;
  std::map<std::string, std::vector<TraceRow>> subsByGroup;
  for (const auto& m : *found)
    for (const auto& r : client::trace::decodeTraceData(m.body)) {
      if (r.msgId != msgId) continue;
      if (r.type == TraceType::Pub) pubs.push_back(rowOf(r, m));
      else if (r.type == TraceType::SubAfter) subsByGroup[r.groupName].push_back(rowOf(r, m));
    }
  if (ctx.json) {
    auto& t = ctx.report.table("traces", {"#Type", "#Group", "#ClientHost", "#Time", "#CostTimes", "#Status"});
    for (auto& p : pubs) t.add({"Pub", p.group, p.clientHost, p.time, p.costTime, p.status});
    for (auto& [group, rows] : subsByGroup)
      for (auto& s : rows) t.add({"Sub", s.group, s.clientHost, s.time, s.costTime, s.status});
    return 0;
  }
  for (auto& p : pubs) {
    ctx.report.line(traceLine("#Type", "#ProducerGroup", "#ClientHost", "#SendTime", "#CostTimes", "#Status"));
    ctx.report.line(traceLine("Pub", p.group, p.clientHost, p.time, p.costTime, p.status));
    ctx.report.line("");
  }
  for (auto& [group, rows] : subsByGroup) {
    ctx.report.line(traceLine("#Type", "#ConsumerGroup", "#ClientHost", "#ConsumerTime", "#CostTimes", "#Status"));
    for (auto& s : rows) ctx.report.line(traceLine("Sub", s.group, s.clientHost, s.time, s.costTime, s.status));
    ctx.report.line("");
  }
  return 0;
}

VerbRegistrar r1({"queryMsgTraceById", "query a message trace",
                  {{"-i, --msgId <id>", "Message Id (required)"},
                   {"-t, --traceTopic <topic>", "The name value of message trace topic (default RMQ_SYS_TRACE_TOPIC)"}},
                  &queryMsgTraceById});

}  // namespace
}  // namespace rmq::admin
