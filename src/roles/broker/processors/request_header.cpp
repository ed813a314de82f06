#include "roles/broker/processors/request_header.h"

#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::broker {

std::string HeaderReader::str(std::string_view key, bool required) {
  if (const std::string* v = f_.find(key)) return *v;
  if (required && missing_.empty()) missing_ = std::string(key);
  return {};
}

std::optional<std::string> HeaderReader::optStr(std::string_view key) const {
  if (const std::string* v = f_.find(key)) return *v;
  return std::nullopt;
}

int64_t HeaderReader::i64(std::string_view key, bool required, int64_t dflt) {
  if (auto v = f_.getInt(key)) return *v;
  if (required && missing_.empty()) missing_ = std::string(key);
  return dflt;
}

bool HeaderReader::boolean(std::string_view key, bool dflt) const {
  if (auto v = f_.getBool(key)) return *v;
  return dflt;
}

Error HeaderReader::error() const {
  return makeError(ResponseCode::SYSTEM_ERROR, "the custom field <" + missing_ + "> is null or not a valid value");
}

namespace {

// Field names of SendMessageRequestHeader (V1) and SendMessageRequestHeaderV2, in one table.
struct SendKeys {
  const char *producerGroup, *topic, *defaultTopic, *defaultTopicQueueNums, *queueId, *sysFlag,
      *bornTimestamp, *flag, *properties, *reconsumeTimes, *unitMode, *batch, *maxReconsumeTimes;
};
constexpr SendKeys kV1{"producerGroup", "topic", "defaultTopic", "defaultTopicQueueNums", "queueId",
                       "sysFlag", "bornTimestamp", "flag", "properties", "reconsumeTimes", "unitMode",
                       "batch", "maxReconsumeTimes"};
constexpr SendKeys kV2{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "m", "l"};

}  // namespace

Result<SendHeader> decodeSendHeader(const net::RemotingCommand& req) {
  const SendKeys& k = req.code == RequestCode::SEND_MESSAGE || req.code == RequestCode::SEND_REPLY_MESSAGE ? kV1 : kV2;
  HeaderReader r(req.extFields);
  SendHeader h;
  h.producerGroup = r.str(k.producerGroup);
  h.topic = r.str(k.topic);
  h.defaultTopic = r.str(k.defaultTopic);
  h.defaultTopicQueueNums = r.i32(k.defaultTopicQueueNums);
  h.queueId = r.i32(k.queueId);
  h.sysFlag = r.i32(k.sysFlag);
  h.bornTimestamp = r.i64(k.bornTimestamp);
  h.flag = r.i32(k.flag);
  h.properties = r.str(k.properties, false);
  h.reconsumeTimes = r.i32(k.reconsumeTimes, false, 0);
  h.unitMode = r.boolean(k.unitMode);
  h.batch = r.boolean(k.batch);
  if (auto v = req.extFields.getInt(k.maxReconsumeTimes)) h.maxReconsumeTimes = static_cast<int32_t>(*v);
  if (!r.ok()) return r.error();
  return h;
}

Result<PullHeader> decodePullHeader(const net::RemotingCommand& req) {
  HeaderReader r(req.extFields);
  PullHeader h;
  h.consumerGroup = r.str("consumerGroup");
  h.topic = r.str("topic");
  h.queueId = r.i32("queueId");
  h.queueOffset = r.i64("queueOffset");
  h.maxMsgNums = r.i32("maxMsgNums");
  h.sysFlag = r.i32("sysFlag");
  h.commitOffset = r.i64("commitOffset");
  h.suspendTimeoutMillis = r.i64("suspendTimeoutMillis");
  h.subscription = r.optStr("subscription");
  h.subVersion = r.i64("subVersion");
  h.expressionType = r.optStr("expressionType");
  if (!r.ok()) return r.error();
  return h;
}

}  // namespace rmq::broker
