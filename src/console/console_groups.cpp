// /api/ handlers for consumer groups (list with lag, one group's members and per-queue lag, reset offset)
// and producer connections.
#include "console/console_handlers.h"
#include "console/console_json.h"
#include "net/when_all.h"

namespace rmq::console {

using http::HttpRequest;
using http::HttpResponse;

namespace {

// One row of the group list: its lag (GET_CONSUME_STATS over its brokers) and online members.
asio::awaitable<Result<GroupSummary>> groupSummary(Console::State& s, std::string group) {
  GroupSummary g;
  g.group = group;
  auto stats = co_await s.admin->asyncConsumeStats(group);
  if (stats) g.stats = std::move(*stats);
  else g.error = stats.error().message;
  auto conn = co_await s.admin->asyncConsumerConnection(group);
  if (conn) g.members = conn->connections.size();
  co_return g;
}

}  // namespace

asio::awaitable<HttpResponse> getGroups(Console::State& s, const HttpRequest&) {
  auto topics = co_await s.admin->asyncTopicList();
  if (!topics) co_return failure(topics.error());
  std::vector<std::string> groups = groupsOfTopics(*topics);
  std::vector<asio::awaitable<Result<GroupSummary>>> rows;
  for (auto& group : groups) rows.push_back(groupSummary(s, group));
  // A row is two rounds (route + a call per broker, each bounded by brokerCallTimeout) per view.
  std::chrono::milliseconds timeout = 4 * brokerCallTimeout(s);
  auto answers = co_await net::whenAll(std::move(rows), timeout);
  std::vector<GroupSummary> out;
  for (size_t i = 0; i < groups.size(); ++i) {
    if (answers[i]) {
      out.push_back(std::move(answers[i].value()));
    } else {
      GroupSummary g;
      g.group = groups[i];
      g.error = answers[i].error().message;
      out.push_back(std::move(g));
    }
  }
  co_return HttpResponse::json(groupListJson(out));
}

asio::awaitable<HttpResponse> getGroup(Console::State& s, const HttpRequest& req) {
  auto group = nonEmpty(req, "group");
  if (!group) co_return badRequest("group is required");
  std::string topic = field(req, "topic").value_or("");
  auto stats = co_await s.admin->asyncConsumeStats(*group, topic);
  auto conn = co_await s.admin->asyncConsumerConnection(*group);
  if (!stats && !conn) co_return failure(stats.error());
  std::optional<client::ConsumeStats> statsView;
  if (stats) statsView = std::move(*stats);
  std::optional<client::ConsumerConnectionInfo> connView;
  if (conn) connView = std::move(*conn);
  co_return HttpResponse::json(groupDetailJson(*group, connView, statsView));
}

asio::awaitable<HttpResponse> postResetOffset(Console::State& s, const HttpRequest& req) {
  auto group = nonEmpty(req, "group");
  auto topic = nonEmpty(req, "topic");
  if (!group || !topic) co_return badRequest("group and topic are required");
  auto ts = intField(req, "timestamp", nowMillis());
  if (!ts || *ts < 0) co_return badRequest("timestamp must be epoch milliseconds");
  auto offsets = co_await s.admin->asyncResetOffsetByTime(*group, *topic, *ts, true);
  if (!offsets) co_return failure(offsets.error());
  co_return HttpResponse::json(resetOffsetJson(*group, *topic, *ts, *offsets));
}

asio::awaitable<HttpResponse> getProducers(Console::State& s, const HttpRequest& req) {
  auto topic = nonEmpty(req, "topic");
  auto group = nonEmpty(req, "group");
  if (!topic || !group) co_return badRequest("topic and group (the producer group) are required");
  auto connections = co_await s.admin->asyncProducerConnection(*group, *topic);
  if (!connections) {
    // The brokers answer SYSTEM_ERROR "the producer group[G] not exist" when no producer of G is connected.
    if (connections.error().message.find("not exist") != std::string::npos)
      co_return HttpResponse::json(errorJson(connections.error().message, connections.error().code), 404);
    co_return failure(connections.error());
  }
  co_return HttpResponse::json(producerListJson(*group, *topic, *connections));
}

}  // namespace rmq::console
