// /api/ handlers for consumer groups: list with lag, one group's members and per-queue lag, reset offset.
#include "console/console_handlers.h"
#include "console/console_json.h"

namespace rmq::console {

using http::HttpRequest;
using http::HttpResponse;

asio::awaitable<HttpResponse> getGroups(Console::State& s, const HttpRequest&) {
  auto topics = co_await s.admin->asyncTopicList();
  if (!topics) co_return failure(topics.error());
  std::vector<GroupSummary> out;
  for (auto& group : groupsOfTopics(*topics)) {
    GroupSummary g;
    g.group = group;
    auto stats = co_await s.admin->asyncConsumeStats(group);
    if (stats) g.stats = std::move(*stats);
    else g.error = stats.error().message;
    auto conn = co_await s.admin->asyncConsumerConnection(group);
    if (conn) g.members = conn->connections.size();
    out.push_back(std::move(g));
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

}  // namespace rmq::console
