// /api/ handlers for the cluster overview, brokers and topics.
#include "common/json.h"
#include "console/console_handlers.h"
#include "console/console_json.h"
#include "net/when_all.h"

namespace rmq::console {

using http::HttpRequest;
using http::HttpResponse;

asio::awaitable<HttpResponse> getConsoleInfo(Console::State& s, const HttpRequest&) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("readOnly");
  w.Bool(s.options.readOnly);
  w.Key("namesrvAddr");
  w.String(s.options.namesrvAddr.c_str());
  w.Key("version");
  w.String(RMQ_VERSION);
  w.EndObject();
  co_return HttpResponse::json(std::string(buf.GetString(), buf.GetSize()));
}

asio::awaitable<HttpResponse> getCluster(Console::State& s, const HttpRequest&) {
  auto info = co_await s.admin->asyncClusterInfo();
  if (!info) co_return failure(info.error());
  std::vector<BrokerView> brokers = brokerViews(*info);
  std::vector<asio::awaitable<Result<std::map<std::string, std::string>>>> calls;
  for (auto& b : brokers) calls.push_back(s.admin->asyncBrokerRuntimeInfo(b.addr));
  std::chrono::milliseconds timeout = brokerCallTimeout(s);
  auto runtimes = co_await net::whenAll(std::move(calls), timeout);
  for (size_t i = 0; i < brokers.size(); ++i) {
    if (runtimes[i]) brokers[i].runtime = std::move(runtimes[i].value());
    else brokers[i].error = runtimes[i].error().message;
  }
  co_return HttpResponse::json(clusterJson(brokers));
}

asio::awaitable<HttpResponse> getBrokerRuntime(Console::State& s, const HttpRequest& req) {
  auto addr = nonEmpty(req, "addr");
  if (!addr) co_return badRequest("addr (broker ip:port) is required");
  auto rt = co_await s.admin->asyncBrokerRuntimeInfo(*addr);
  if (!rt) co_return failure(rt.error());
  co_return HttpResponse::json(keyValuesJson(*addr, "runtime", *rt));
}

asio::awaitable<HttpResponse> getBrokerConfig(Console::State& s, const HttpRequest& req) {
  auto addr = nonEmpty(req, "addr");
  if (!addr) co_return badRequest("addr (broker ip:port) is required");
  auto cfg = co_await s.admin->asyncBrokerConfig(*addr);
  if (!cfg) co_return failure(cfg.error());
  co_return HttpResponse::json(keyValuesJson(*addr, "config", *cfg));
}

asio::awaitable<HttpResponse> getTopics(Console::State& s, const HttpRequest&) {
  auto topics = co_await s.admin->asyncTopicList();
  if (!topics) co_return failure(topics.error());
  auto info = co_await s.admin->asyncClusterInfo();
  if (!info) co_return failure(info.error());
  co_return HttpResponse::json(topicListJson(*topics, *info));
}

asio::awaitable<HttpResponse> getTopic(Console::State& s, const HttpRequest& req) {
  auto topic = nonEmpty(req, "topic");
  if (!topic) co_return badRequest("topic is required");
  auto route = co_await s.admin->asyncTopicRoute(*topic);
  if (!route) co_return failure(route.error());
  auto stats = co_await s.admin->asyncTopicStats(*topic);
  if (!stats) co_return failure(stats.error());
  auto groups = co_await s.admin->asyncTopicConsumeByWho(*topic);
  std::vector<std::string> groupNames = groups ? std::move(*groups) : std::vector<std::string>{};
  // TPS: messages written per second since this console last looked at the topic.
  int64_t now = nowMillis();
  int64_t count = topicTotals(*stats).maxOffsetSum;
  std::optional<double> tps;
  if (auto it = s.topicSamples.find(*topic); it != s.topicSamples.end())
    tps = ratePerSecond(it->second.first, it->second.second, count, now);
  s.topicSamples[*topic] = {count, now};
  co_return HttpResponse::json(topicDetailJson(*topic, *route, *stats, tps, groupNames));
}

asio::awaitable<HttpResponse> postTopic(Console::State& s, const HttpRequest& req) {
  client::TopicConfigSpec spec;
  auto topic = nonEmpty(req, "topic");
  if (!topic) co_return badRequest("topic is required");
  spec.topicName = *topic;
  auto readQueues = intField(req, "readQueueNums", 8);
  auto writeQueues = intField(req, "writeQueueNums", 8);
  auto perm = intField(req, "perm", 6);
  if (!readQueues || !writeQueues || !perm || *readQueues < 1 || *writeQueues < 1 || *readQueues > 1024 ||
      *writeQueues > 1024)
    co_return badRequest("readQueueNums and writeQueueNums must be integers in 1..1024, perm an integer");
  if (*perm != 2 && *perm != 4 && *perm != 6) co_return badRequest("perm must be 2 (write), 4 (read) or 6 (read+write)");
  spec.readQueueNums = static_cast<int32_t>(*readQueues);
  spec.writeQueueNums = static_cast<int32_t>(*writeQueues);
  spec.perm = static_cast<int32_t>(*perm);
  spec.order = field(req, "order").value_or("false") == "true";
  std::string cluster = field(req, "cluster").value_or("");
  std::string brokerAddr = field(req, "brokerAddr").value_or("");
  auto created = co_await s.admin->asyncCreateTopic(spec, cluster, brokerAddr);
  if (!created) co_return failure(created.error());
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("topic");
  w.String(spec.topicName.c_str());
  w.Key("brokers");
  w.StartArray();
  for (auto& addr : *created) w.String(addr.c_str());
  w.EndArray();
  w.EndObject();
  co_return HttpResponse::json(std::string(buf.GetString(), buf.GetSize()));
}

asio::awaitable<HttpResponse> deleteTopic(Console::State& s, const HttpRequest& req) {
  auto topic = nonEmpty(req, "topic");
  if (!topic) co_return badRequest("topic is required");
  std::string cluster = field(req, "cluster").value_or("");
  auto r = co_await s.admin->asyncDeleteTopic(*topic, cluster);
  if (!r) co_return failure(r.error());
  s.topicSamples.erase(*topic);
  co_return HttpResponse::json(R"({"deleted":true})");
}

}  // namespace rmq::console
