#include "broker_calls.h"

#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <utility>

#include "client/request_headers.h"
#include "client/route.h"
#include "common/response_code.h"
#include "common/json.h"
#include "common/request_code.h"
#include "node_process.h"

namespace rmq::test {

net::RemotingCommand invoke(TestClient& c, const std::string& addr, net::RemotingCommand req) {
  auto r = c.call(addr, std::move(req));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(*r);
}

rapidjson::Document parseBody(const net::RemotingCommand& resp) {
  rapidjson::Document doc;
  auto r = json::parse(bodyOf(resp), doc);
  REQUIRE_MESSAGE(r.ok(), bodyOf(resp));
  return doc;
}

void createTopic(TestClient& c, const std::string& addr, const std::string& topic, int queues) {
  auto r = invoke(c, addr, createTopicRequest(topic, queues));
  REQUIRE_MESSAGE(r.code == 0, r.remark.value_or(""));
}

net::RemotingCommand sendOk(TestClient& c, const std::string& addr, const SendSpec& s) {
  auto r = invoke(c, addr, sendRequest(s));
  REQUIRE_MESSAGE(r.code == 0, r.remark.value_or(""));
  return r;
}

std::vector<net::RemotingCommand> sendDispatched(TestClient& c, const std::string& addr,
                                                 const std::vector<SendSpec>& sends) {
  std::vector<net::RemotingCommand> answers;
  std::map<std::pair<std::string, int32_t>, int64_t> written;  // (topic, queue) -> offsets written
  for (auto& s : sends) {
    answers.push_back(sendOk(c, addr, s));
    auto queueId = static_cast<int32_t>(extInt(answers.back(), "queueId"));
    auto& end = written[{s.topic, queueId}];
    end = std::max(end, extInt(answers.back(), "queueOffset") + 1);
  }
  for (auto& [queue, end] : written)
    REQUIRE_MESSAGE(dispatched(c, addr, queue.first, queue.second, end),
                    queue.first << ":" << queue.second << " never reached " << end);
  return answers;
}

int64_t maxOffset(TestClient& c, const std::string& addr, const std::string& topic, int32_t queueId) {
  auto r = c.call(addr, client::makeQueueOffsetRequest(RequestCode::GET_MAX_OFFSET, topic, queueId));
  return r.ok() && r->code == 0 ? extInt(*r, "offset") : -1;
}

bool dispatched(TestClient& c, const std::string& addr, const std::string& topic, int32_t queueId, int64_t count) {
  return eventually([&] { return maxOffset(c, addr, topic, queueId) >= count; }, std::chrono::seconds(10));
}

std::vector<MessageExt> pullMessages(TestClient& c, const std::string& addr, const PullSpec& p) {
  auto r = invoke(c, addr, pullRequest(p));
  return r.code == 0 ? pulledMessages(r) : std::vector<MessageExt>{};
}

std::optional<std::map<std::string, std::string>> brokerRuntimeInfo(TestClient& c, const std::string& addr,
                                                                    std::chrono::milliseconds timeout) {
  auto r = c.call(addr, net::RemotingCommand::request(RequestCode::GET_BROKER_RUNTIME_INFO), timeout);
  if (!r.ok() || r->code != ResponseCode::SUCCESS) return std::nullopt;
  auto kv = client::parseKvTable(r->body);
  if (!kv.ok()) return std::nullopt;
  return std::move(*kv);
}

std::optional<std::string> brokerRuntimeValue(TestClient& c, const std::string& addr, const std::string& key,
                                              std::chrono::milliseconds timeout) {
  auto kv = brokerRuntimeInfo(c, addr, timeout);
  if (!kv) return std::nullopt;
  auto it = kv->find(key);
  if (it == kv->end()) return std::nullopt;
  return it->second;
}

}  // namespace rmq::test
