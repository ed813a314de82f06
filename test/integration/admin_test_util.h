#pragma once
// Small helpers for the admin / delay / retry integration tests (over broker_fixture.h).
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <algorithm>
#include <functional>
#include <string>
#include <map>
#include <set>
#include <thread>

#include "broker_fixture.h"
#include "common/json.h"
#include "common/request_code.h"
#include "net/remoting_command.h"

namespace rmq::test::admin {

inline net::RemotingCommand request(int code, std::initializer_list<std::pair<const char*, std::string>> fields,
                                    std::string body = {}) {
  auto cmd = net::RemotingCommand::request(code);
  for (auto& [k, v] : fields) cmd.extFields.set(k, v);
  cmd.body = std::move(body);
  return cmd;
}

// Calls and REQUIREs a transport-level answer.
inline net::RemotingCommand call(TestClient& c, const std::string& addr, net::RemotingCommand req) {
  auto r = c.call(addr, std::move(req));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(*r);
}

inline std::string bodyOf(const net::RemotingCommand& resp) {
  std::string b = resp.body;
  for (auto& seg : resp.bodySegments) b.append(seg.data, seg.size);
  return b;
}

inline rapidjson::Document parseBody(const net::RemotingCommand& resp) {
  rapidjson::Document doc;
  auto r = rmq::json::parse(bodyOf(resp), doc);
  REQUIRE_MESSAGE(r.ok(), bodyOf(resp));
  return doc;
}

inline net::RemotingCommand createTopicRequest(const std::string& topic, int queues, int perm = 6) {
  return request(RequestCode::UPDATE_AND_CREATE_TOPIC,
                 {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", std::to_string(queues)},
                  {"writeQueueNums", std::to_string(queues)}, {"perm", std::to_string(perm)},
                  {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "0"}, {"order", "false"}});
}

inline void createTopic(TestClient& c, const std::string& addr, const std::string& topic, int queues) {
  auto r = call(c, addr, createTopicRequest(topic, queues));
  REQUIRE_MESSAGE(r.code == 0, r.remark.value_or(""));
}

// Sends and returns the answer (REQUIREs SUCCESS).
inline net::RemotingCommand sendOk(TestClient& c, const std::string& addr, const SendSpec& s) {
  auto r = call(c, addr, sendRequest(s));
  REQUIRE_MESSAGE(r.code == 0, r.remark.value_or(""));
  return r;
}

inline std::vector<MessageExt> pullAll(TestClient& c, const std::string& addr, const std::string& topic,
                                       int queueId, int64_t offset = 0, const std::string& group = "cg_admin") {
  PullSpec p;
  p.group = group;
  p.topic = topic;
  p.queueId = queueId;
  p.offset = offset;
  auto r = call(c, addr, pullRequest(p));
  return r.code == 0 ? pulledMessages(r) : std::vector<MessageExt>{};
}

inline bool waitFor(const std::function<bool()>& cond, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return cond();
}

inline int64_t maxOffset(TestClient& c, const std::string& addr, const std::string& topic, int q) {
  auto r = c.call(addr, request(RequestCode::GET_MAX_OFFSET, {{"topic", topic}, {"queueId", std::to_string(q)}}));
  return r.ok() && r->code == 0 ? r->extFields.getInt("offset").value_or(-1) : -1;
}

// Sends return before the consume queue is written (dispatch is asynchronous): wait for it.
inline void waitDispatched(TestClient& c, const std::string& addr, const std::string& topic, int q, int64_t n) {
  REQUIRE_MESSAGE(waitFor([&] { return maxOffset(c, addr, topic, q) >= n; }, std::chrono::seconds(10)),
                  topic << ":" << q << " never reached " << n);
}

}  // namespace rmq::test::admin
