#include "client/request_headers.h"

#include <fmt/format.h>

#include "client/producer/request_reply.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

namespace {

// One-letter V2 keys next to their V1 names (SendMessageRequestHeaderV2).
struct SendKeys { const char* producerGroup; const char* topic; const char* defaultTopic;
  const char* defaultTopicQueueNums; const char* queueId; const char* sysFlag; const char* bornTimestamp;
  const char* flag; const char* properties; const char* reconsumeTimes; const char* unitMode;
  const char* maxReconsumeTimes; const char* batch; const char* brokerName; };
constexpr SendKeys kV2{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"};
constexpr SendKeys kV1{"producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums", "queueId",
                       "sysFlag", "bornTimestamp", "flag", "properties", "reconsumeTimes", "unitMode",
                       "maxReconsumeTimes", "batch", "bname"};

void encodeSend(const SendMessageHeader& h, net::ExtFields& out, const SendKeys& k) {
  out.set(k.producerGroup, h.producerGroup);
  out.set(k.topic, h.topic);
  out.set(k.defaultTopic, h.defaultTopic);
  out.set(k.defaultTopicQueueNums, int64_t{h.defaultTopicQueueNums});
  out.set(k.queueId, int64_t{h.queueId});
  out.set(k.sysFlag, int64_t{h.sysFlag});
  out.set(k.bornTimestamp, h.bornTimestamp);
  out.set(k.flag, int64_t{h.flag});
  if (!h.properties.empty()) out.set(k.properties, h.properties);
  out.set(k.reconsumeTimes, int64_t{h.reconsumeTimes});
  out.setBool(k.unitMode, h.unitMode);
  if (h.maxReconsumeTimes) out.set(k.maxReconsumeTimes, int64_t{*h.maxReconsumeTimes});
  out.setBool(k.batch, h.batch);
  if (!h.brokerName.empty()) out.set(k.brokerName, h.brokerName);
}

Error missing(const char* key) {
  return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("the custom field <{}> is null", key));
}

}  // namespace

void encodeSendHeaderV2(const SendMessageHeader& h, net::ExtFields& out) { encodeSend(h, out, kV2); }
void encodeSendHeaderV1(const SendMessageHeader& h, net::ExtFields& out) { encodeSend(h, out, kV1); }

Result<SendMessageHeader> decodeSendHeader(const net::ExtFields& f, bool v2) {
  const SendKeys& k = v2 ? kV2 : kV1;
  SendMessageHeader h;
  for (const char* req : {k.producerGroup, k.topic, k.defaultTopic})
    if (!f.contains(req)) return missing(req);
  h.producerGroup = std::string(f.get(k.producerGroup));
  h.topic = std::string(f.get(k.topic));
  h.defaultTopic = std::string(f.get(k.defaultTopic));
  auto needInt = [&](const char* key, auto& dst) -> bool {
    auto v = f.getInt(key);
    if (!v) return false;
    dst = static_cast<std::remove_reference_t<decltype(dst)>>(*v);
    return true;
  };
  if (!needInt(k.defaultTopicQueueNums, h.defaultTopicQueueNums)) return missing(k.defaultTopicQueueNums);
  if (!needInt(k.queueId, h.queueId)) return missing(k.queueId);
  if (!needInt(k.sysFlag, h.sysFlag)) return missing(k.sysFlag);
  if (!needInt(k.bornTimestamp, h.bornTimestamp)) return missing(k.bornTimestamp);
  if (!needInt(k.flag, h.flag)) return missing(k.flag);
  h.properties = std::string(f.get(k.properties));
  if (auto v = f.getInt(k.reconsumeTimes)) h.reconsumeTimes = static_cast<int32_t>(*v);
  h.unitMode = f.getBool(k.unitMode).value_or(false);
  if (auto v = f.getInt(k.maxReconsumeTimes)) h.maxReconsumeTimes = static_cast<int32_t>(*v);
  h.batch = f.getBool(k.batch).value_or(false);
  h.brokerName = std::string(f.get(k.brokerName));
  return h;
}

net::RemotingCommand makeSendRequest(const SendMessageHeader& h, std::string body) {
  // A reply (MSG_TYPE=reply, request_reply.h) goes with SEND_REPLY_MESSAGE_V2, as Java's client sends it.
  int code = h.batch                            ? RequestCode::SEND_BATCH_MESSAGE
             : isReplyProperties(h.properties) ? RequestCode::SEND_REPLY_MESSAGE_V2
                                               : RequestCode::SEND_MESSAGE_V2;
  auto cmd = net::RemotingCommand::request(code);
  encodeSendHeaderV2(h, cmd.extFields);
  cmd.body = std::move(body);
  return cmd;
}

void encodePullHeader(const PullMessageHeader& h, net::ExtFields& out) {
  out.set("consumerGroup", h.consumerGroup);
  out.set("topic", h.topic);
  out.set("queueId", int64_t{h.queueId});
  out.set("queueOffset", h.queueOffset);
  out.set("maxMsgNums", int64_t{h.maxMsgNums});
  out.set("sysFlag", int64_t{h.sysFlag});
  out.set("commitOffset", h.commitOffset);
  out.set("suspendTimeoutMillis", h.suspendTimeoutMillis);
  if (!h.subscription.empty()) out.set("subscription", h.subscription);
  out.set("subVersion", h.subVersion);
  if (!h.expressionType.empty()) out.set("expressionType", h.expressionType);
  if (!h.brokerName.empty()) out.set("bname", h.brokerName);
}

Result<PullMessageHeader> decodePullHeader(const net::ExtFields& f) {
  PullMessageHeader h;
  for (const char* req : {"consumerGroup", "topic"})
    if (!f.contains(req)) return missing(req);
  h.consumerGroup = std::string(f.get("consumerGroup"));
  h.topic = std::string(f.get("topic"));
  struct IntField { const char* key; int64_t* dst; };
  int64_t queueId = 0, maxMsgNums = 0, sysFlag = 0;
  for (IntField fld : {IntField{"queueId", &queueId}, {"queueOffset", &h.queueOffset}, {"maxMsgNums", &maxMsgNums},
                       {"sysFlag", &sysFlag}, {"commitOffset", &h.commitOffset},
                       {"suspendTimeoutMillis", &h.suspendTimeoutMillis}, {"subVersion", &h.subVersion}}) {
    auto v = f.getInt(fld.key);
    if (!v) return missing(fld.key);
    *fld.dst = *v;
  }
  h.queueId = static_cast<int32_t>(queueId);
  h.maxMsgNums = static_cast<int32_t>(maxMsgNums);
  h.sysFlag = static_cast<int32_t>(sysFlag);
  h.subscription = std::string(f.get("subscription"));
  h.expressionType = std::string(f.get("expressionType"));
  h.brokerName = std::string(f.get("bname"));
  return h;
}

net::RemotingCommand makePullRequest(const PullMessageHeader& h) {
  auto cmd = net::RemotingCommand::request(RequestCode::PULL_MESSAGE);
  encodePullHeader(h, cmd.extFields);
  return cmd;
}

net::RemotingCommand makeRouteRequest(const std::string& topic) {
  auto cmd = net::RemotingCommand::request(RequestCode::GET_ROUTEINFO_BY_TOPIC);
  cmd.extFields.set("topic", topic);
  return cmd;
}

net::RemotingCommand makeQueryConsumerOffset(const std::string& group, const std::string& topic, int32_t queueId) {
  auto cmd = net::RemotingCommand::request(RequestCode::QUERY_CONSUMER_OFFSET);
  cmd.extFields.set("consumerGroup", group);
  cmd.extFields.set("topic", topic);
  cmd.extFields.set("queueId", int64_t{queueId});
  return cmd;
}

net::RemotingCommand makeUpdateConsumerOffset(const std::string& group, const std::string& topic, int32_t queueId,
                                              int64_t offset) {
  auto cmd = net::RemotingCommand::request(RequestCode::UPDATE_CONSUMER_OFFSET);
  cmd.extFields.set("consumerGroup", group);
  cmd.extFields.set("topic", topic);
  cmd.extFields.set("queueId", int64_t{queueId});
  cmd.extFields.set("commitOffset", offset);
  return cmd;
}

net::RemotingCommand makeQueueOffsetRequest(int code, const std::string& topic, int32_t queueId) {
  auto cmd = net::RemotingCommand::request(code);
  cmd.extFields.set("topic", topic);
  cmd.extFields.set("queueId", int64_t{queueId});
  return cmd;
}

net::RemotingCommand makeSearchOffset(const std::string& topic, int32_t queueId, int64_t timestamp) {
  auto cmd = makeQueueOffsetRequest(RequestCode::SEARCH_OFFSET_BY_TIMESTAMP, topic, queueId);
  cmd.extFields.set("timestamp", timestamp);
  return cmd;
}

net::RemotingCommand makeConsumerListRequest(const std::string& group) {
  auto cmd = net::RemotingCommand::request(RequestCode::GET_CONSUMER_LIST_BY_GROUP);
  cmd.extFields.set("consumerGroup", group);
  return cmd;
}

net::RemotingCommand makeSendBack(int64_t commitLogOffset, const std::string& group, int32_t delayLevel,
                                  const std::string& originMsgId, const std::string& originTopic,
                                  int32_t maxReconsumeTimes) {
  auto cmd = net::RemotingCommand::request(RequestCode::CONSUMER_SEND_MSG_BACK);
  cmd.extFields.set("offset", commitLogOffset);
  cmd.extFields.set("group", group);
  cmd.extFields.set("delayLevel", int64_t{delayLevel});
  cmd.extFields.set("originMsgId", originMsgId);
  cmd.extFields.set("originTopic", originTopic);
  cmd.extFields.setBool("unitMode", false);
  cmd.extFields.set("maxReconsumeTimes", int64_t{maxReconsumeTimes});
  return cmd;
}

net::RemotingCommand makeUnregisterClient(const std::string& clientId, const std::string& producerGroup,
                                          const std::string& consumerGroup) {
  auto cmd = net::RemotingCommand::request(RequestCode::UNREGISTER_CLIENT);
  cmd.extFields.set("clientID", clientId);
  if (!producerGroup.empty()) cmd.extFields.set("producerGroup", producerGroup);
  if (!consumerGroup.empty()) cmd.extFields.set("consumerGroup", consumerGroup);
  return cmd;
}

Error responseError(const net::RemotingCommand& resp) {
  return makeError(resp.code, resp.remark.value_or(fmt::format("response code {}", resp.code)));
}

std::optional<int64_t> headerInt(const net::RemotingCommand& resp, std::string_view key) {
  return resp.extFields.getInt(key);
}

}  // namespace rmq::client
