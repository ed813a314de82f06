#include "pop_helpers.h"

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "broker_calls.h"
#include "common/request_code.h"
#include "coord/base64.h"
#include "common/response_code.h"
#include "roles/broker/pop/pop_codes.h"
#include "require_ok.h"

namespace rmq::test {

std::optional<Popped> tryPop(TestClient& c, const std::string& addr, const PopSpec& s) {
  auto req = request(RequestCode::POP_MESSAGE, {{"consumerGroup", s.group},
                                                {"topic", s.topic},
                                                {"queueId", std::to_string(s.queueId)},
                                                {"maxMsgNums", std::to_string(s.maxNums)},
                                                {"invisibleTime", std::to_string(s.invisibleMs)},
                                                {"pollTime", std::to_string(s.pollMs)},
                                                {"bornTime", "0"},
                                                {"initMode", "0"},
                                                {"expType", s.expType},
                                                {"exp", s.exp},
                                                {"order", s.order ? "true" : "false"},
                                                {"attemptId", s.attemptId}});
  auto r = c.call(addr, std::move(req), std::chrono::milliseconds(s.pollMs + 10000));
  if (!r.ok()) return std::nullopt;
  Popped p;
  p.code = r->code;
  p.resp = *r;
  if (r->code == ResponseCode::SUCCESS) p.messages = pulledMessages(*r);
  return p;
}

Popped popMessages(TestClient& c, const std::string& addr, const PopSpec& s) {
  auto p = tryPop(c, addr, s);
  REQUIRE(p.has_value());
  return std::move(*p);
}

std::string handleOf(const MessageExt& m) {
  auto* h = m.property("POP_CK");
  REQUIRE(h);
  return *h;
}

int tryAck(TestClient& c, const std::string& addr, const std::string& group, const std::string& topic,
           const MessageExt& m) {
  const std::string* handle = m.property("POP_CK");
  if (!handle) return -1001;
  auto r = c.call(addr, RequestCode::ACK_MESSAGE,
                  {{"consumerGroup", group},
                   {"topic", topic},
                   {"queueId", std::to_string(m.queueId)},
                   {"extraInfo", *handle},
                   {"offset", std::to_string(m.queueOffset)}});
  return codeOf(r);
}

int ackMessage(TestClient& c, const std::string& addr, const std::string& group, const std::string& topic,
               const MessageExt& m, const std::string& handle) {
  auto r = c.call(addr, RequestCode::ACK_MESSAGE,
                  {{"consumerGroup", group},
                   {"topic", topic},
                   {"queueId", std::to_string(m.queueId)},
                   {"extraInfo", handle.empty() ? handleOf(m) : handle},
                   {"offset", std::to_string(m.queueOffset)}});
  REQUIRE_OK(r);
  return r->code;
}

net::RemotingCommand changeInvisible(TestClient& c, const std::string& addr, const std::string& group,
                                     const std::string& topic, const MessageExt& m, const std::string& handle,
                                     int64_t invisibleMs) {
  auto r = c.call(addr, RequestCode::CHANGE_MESSAGE_INVISIBLETIME,
                  {{"consumerGroup", group},
                   {"topic", topic},
                   {"queueId", std::to_string(m.queueId)},
                   {"extraInfo", handle},
                   {"offset", std::to_string(m.queueOffset)},
                   {"invisibleTime", std::to_string(invisibleMs)}});
  REQUIRE_OK(r);
  return *r;
}

namespace {
// Field `i` (0-based) of a receipt handle: startOffset popTime invisibleTime reviveQid topicType
// brokerName queueId queueOffset [commitLogOffset].
std::string handleField(const std::string& handle, int i) {
  size_t from = 0;
  for (int k = 0; k < i; ++k) from = handle.find(' ', from) + 1;
  return handle.substr(from, handle.find(' ', from) - from);
}
}  // namespace

net::RemotingCommand batchAck(TestClient& c, const std::string& addr, const std::string& group, const std::string& topic,
                              const std::vector<MessageExt>& ms, const std::string& brokerName) {
  std::map<std::pair<int32_t, int64_t>, std::vector<int64_t>> batches;  // (queue, popTime) -> offsets
  for (const auto& m : ms) batches[{m.queueId, std::stoll(handleField(handleOf(m), 1))}].push_back(m.queueOffset);
  std::string acks;
  for (auto& [key, offsets] : batches) {
    int64_t start = *std::min_element(offsets.begin(), offsets.end());
    std::string bits;  // java.util.BitSet.toByteArray(): bit i = byte i/8, bit i%8
    for (int64_t o : offsets) {
      size_t i = static_cast<size_t>(o - start);
      if (bits.size() <= i / 8) bits.resize(i / 8 + 1, '\0');
      bits[i / 8] = static_cast<char>(bits[i / 8] | (1 << (i % 8)));
    }
    acks += fmt::format(R"({}{{"b":"{}","c":"{}","it":60000,"pt":{},"q":{},"r":"0","rq":0,"so":{},"t":"{}"}})",
                        acks.empty() ? "" : ",", coord::base64Encode(bits), group, key.second, key.first, start, topic);
  }
  std::string body = fmt::format(R"({{"acks":[{}],"brokerName":"{}"}})", acks, brokerName);
  auto r = c.call(addr, RequestCode::BATCH_ACK_MESSAGE, {}, body);
  REQUIRE_OK(r);
  return *r;
}

net::RemotingCommand peekMessages(TestClient& c, const std::string& addr, const std::string& group,
                                  const std::string& topic, int32_t queueId, int32_t maxNums) {
  auto r = c.call(addr, RequestCode::PEEK_MESSAGE,
                  {{"consumerGroup", group},
                   {"topic", topic},
                   {"queueId", std::to_string(queueId)},
                   {"maxMsgNums", std::to_string(maxNums)}});
  REQUIRE_OK(r);
  return *r;
}

void createPopGroup(TestClient& c, const std::string& addr, const std::string& group, int retryMaxTimes, bool orderly) {
  std::string body = fmt::format(R"({{"groupName":"{}","retryMaxTimes":{},"consumeMessageOrderly":{}}})", group,
                                 retryMaxTimes, orderly ? "true" : "false");
  auto r = c.call(addr, RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, {}, body);
  REQUIRE_OK(r);
  REQUIRE(r->code == ResponseCode::SUCCESS);
}

int64_t consumerOffset(TestClient& c, const std::string& addr, const std::string& group, const std::string& topic,
                       int32_t queueId) {
  auto r = c.call(addr, RequestCode::QUERY_CONSUMER_OFFSET,
                  {{"consumerGroup", group}, {"topic", topic}, {"queueId", std::to_string(queueId)}});
  REQUIRE_OK(r);
  if (r->code != ResponseCode::SUCCESS) return -1;
  return extInt(*r, "offset");
}

}  // namespace rmq::test
