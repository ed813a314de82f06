// The operators' view of POP groups (5.x consumers) on a real dev node: rmqadmin consumerProgress
// (lag counts un-acked messages, #Inflight), /metrics per group and topic (in flight, due,
// dead-lettered) and the console's group views.
#include <doctest/doctest.h>

#include <sstream>

#include "broker_calls.h"
#include "common/json.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "http_get.h"
#include "pop_helpers.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

// The value of `family` for (group, topic) in a scrape of the node's /metrics; nullopt when absent.
std::optional<double> popGroupMetric(uint16_t httpPort, const std::string& family, const std::string& group,
                                     const std::string& topic) {
  auto scrape = httpGet(httpPort, "/metrics");
  std::istringstream lines(scrape.body);
  const std::string labels = "group=\"" + group + "\",topic=\"" + topic + "\"}";
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with(family + "{") || line.find(labels) == std::string::npos) continue;
    return std::stod(line.substr(line.rfind(' ') + 1));
  }
  return std::nullopt;
}

const rapidjson::Value& member(const rapidjson::Value& v, const char* name) {
  REQUIRE_MESSAGE(v.HasMember(name), (std::string("no ") + name + " in " + json::toString(v)));
  return v[name];
}

}  // namespace

TEST_CASE("pop ops: consumerProgress, /metrics and the console count a POP group's un-acked, due and dead-lettered messages") {
  DevNode node{{.http = true}};
  REQUIRE(node.start());
  TestClient c;
  const std::string addr = node.brokerAddr;
  const std::string t = uniqueName("PopOps"), g = uniqueName("GID_ops");
  REQUIRE(node.createTopic(t, 1));
  std::vector<SendSpec> sends;
  for (int i = 0; i < 10; ++i) sends.push_back({.topic = t, .body = "m" + std::to_string(i), .queueId = 0});
  sendDispatched(c, addr, sends);

  // 10 popped; offsets 0-3 and 6 acked: 5 in flight, the first offset not done is 4.
  auto p = popMessages(c, addr, {.group = g, .topic = t, .queueId = 0, .invisibleMs = 60000});
  REQUIRE(p.messages.size() == 10);
  for (const auto& m : p.messages)
    if (m.queueOffset < 4 || m.queueOffset == 6) REQUIRE(ackMessage(c, addr, g, t, m) == ResponseCode::SUCCESS);

  auto progress = tools::adminJson(node, "consumerProgress", {"-g", g, "-t", t});
  const auto& rows = tools::rows(progress, "queues");
  REQUIRE(rows.Size() == 1);
  CHECK(tools::num(rows[0], "#Broker Offset") == 10);
  CHECK(tools::num(rows[0], "#Consumer Offset") == 4);
  CHECK(tools::num(rows[0], "#Diff") == 6);  // the un-acked 4, 5, 7, 8, 9 and the acked 6 above them
  CHECK(tools::num(rows[0], "#Inflight") == 5);
  // Without -t: the group is found through its %RETRY% topic, as a 4.x push group.
  CHECK(eventually([&] { return tools::admin(node, "consumerProgress", {"-g", g}).out.find("Consume Inflight Total: 5") != std::string::npos; }, 10s));

  CHECK(popGroupMetric(node.httpPort, "rmqnode_pop_group_inflight", g, t) == 5.0);
  CHECK(popGroupMetric(node.httpPort, "rmqnode_pop_group_due", g, t) == 0.0);
  CHECK(popGroupMetric(node.httpPort, "rmqnode_pop_group_dead_lettered_total", g, t) == 0.0);

  // Another group lets 2 pass their invisible time without popping again: 2 due.
  const std::string gDue = uniqueName("GID_due");
  auto late = popMessages(c, addr, {.group = gDue, .topic = t, .maxNums = 2, .invisibleMs = 300});
  REQUIRE(late.messages.size() == 2);
  CHECK(eventually([&] { return popGroupMetric(node.httpPort, "rmqnode_pop_group_due", gDue, t) == 2.0; }, 5s));
  CHECK(popGroupMetric(node.httpPort, "rmqnode_pop_group_inflight", gDue, t) == 2.0);

  // A group allowed one delivery: its message goes to %DLQ% when the invisible time ends.
  const std::string gDlq = uniqueName("GID_dlq");
  createPopGroup(c, addr, gDlq, 0, false);
  auto once = popMessages(c, addr, {.group = gDlq, .topic = t, .maxNums = 1, .invisibleMs = 300});
  REQUIRE(once.messages.size() == 1);
  CHECK(eventually([&] { return popGroupMetric(node.httpPort, "rmqnode_pop_group_dead_lettered_total", gDlq, t) == 1.0; }, 5s));
  CHECK(popGroupMetric(node.httpPort, "rmqnode_pop_group_inflight", gDlq, t) == 0.0);

  // The console: the group's detail and its row in the group list.
  REQUIRE(eventually([&] { return httpGet(node.httpPort, "/api/console").status == 200; }, 15s));
  auto detail = httpGet(node.httpPort, "/api/group?group=" + urlEncode(g) + "&topic=" + urlEncode(t));
  REQUIRE(detail.status == 200);
  rapidjson::Document d;
  REQUIRE(json::parse(detail.body, d));
  CHECK(member(member(d, "pop"), "inFlight").GetInt64() == 5);
  const auto& queues = member(d, "queues");
  REQUIRE(queues.Size() == 1);
  CHECK(member(queues[0], "lag").GetInt64() == 6);
  CHECK(member(member(queues[0], "pop"), "inFlight").GetInt64() == 5);
  CHECK(member(member(queues[0], "pop"), "pullOffset").GetInt64() == 10);
  bool listed = eventually([&] {
    rapidjson::Document list;
    if (!json::parse(httpGet(node.httpPort, "/api/groups").body, list) || !list.HasMember("groups")) return false;
    for (const auto& row : list["groups"].GetArray())
      if (row.HasMember("group") && row["group"].GetString() == gDue && row.HasMember("pop"))
        return row["pop"]["due"].GetInt64() == 2;
    return false;
  }, 15s);
  CHECK(listed);
}
