#include "roles/broker/pop/pop_processor.h"

#include <fmt/format.h>

#include "common/json.h"
#include "common/request_code.h"
#include "coord/base64.h"
#include "common/response_code.h"
#include "roles/broker/broker_context.h"
#include "roles/broker/pop/pop_service.h"
#include "roles/broker/pop/pop_codes.h"
#include "roles/broker/pop/popped_record.h"
#include "roles/broker/processors/admin_support.h"

namespace rmq::broker::pop {

using namespace admin;

namespace {

Result<PopRequest> decodePopRequest(const RemotingCommand& cmd) {
  PopRequest r;
  auto group = requireString(cmd, "consumerGroup");
  if (!group) return group.error();
  auto topic = requireString(cmd, "topic");
  if (!topic) return topic.error();
  auto queueId = requireInt(cmd, "queueId");
  if (!queueId) return queueId.error();
  auto maxNums = requireInt(cmd, "maxMsgNums");
  if (!maxNums) return maxNums.error();
  auto invisible = requireInt(cmd, "invisibleTime");
  if (!invisible) return invisible.error();
  r.group = std::move(*group);
  r.topic = std::move(*topic);
  r.queueId = static_cast<int32_t>(*queueId);
  r.maxNums = static_cast<int32_t>(*maxNums);
  r.invisibleTime = *invisible;
  r.pollTime = optInt(cmd, "pollTime", 0);
  r.initMode = static_cast<int32_t>(optInt(cmd, "initMode", 0));
  r.expressionType = optString(cmd, "expType", "TAG");
  r.expression = optString(cmd, "exp", "*");
  r.fifo = optBool(cmd, "order", false);
  r.attemptId = optString(cmd, "attemptId");
  return r;
}

// "0 <queueId> <value>" items joined by ';' (ExtraInfoUtil; 0 = not a retry topic).
std::string offsetInfo(const PopResult& r, bool listOffsets) {
  std::string out;
  for (const auto& [qid, start] : r.startOffsets) {
    if (!out.empty()) out += ';';
    out += fmt::format("0 {} ", qid);
    if (!listOffsets) {
      out += std::to_string(start);
      continue;
    }
    bool first = true;
    for (const auto& m : r.messages) {
      if (m.queueId != qid) continue;
      out += fmt::format("{}{}", first ? "" : ",", m.queueOffset);
      first = false;
    }
  }
  return out;
}

std::string orderCountInfo(const PopResult& r) {
  std::string out;
  for (const auto& [qid, start] : r.startOffsets) {
    int32_t count = 0;
    for (const auto& m : r.messages)
      if (m.queueId == qid) count = std::max(count, m.deliveryAttempt - 1);
    out += fmt::format("{}0 {} {}", out.empty() ? "" : ";", qid, count);
  }
  return out;
}

RemotingCommand popAnswer(const PopRequest& req, const PopResult& r) {
  int code = ResponseCode::SUCCESS;
  std::string remark = "FOUND";
  if (r.status == PopResult::Status::NoMessage) {
    code = req.pollTime > 0 ? ResponseCode::POLLING_TIMEOUT : ResponseCode::PULL_NOT_FOUND;
    remark = req.pollTime > 0 ? "polling timeout" : "no new message";
  } else if (r.status == PopResult::Status::PollingFull) {
    code = ResponseCode::POLLING_FULL;
    remark = "polling full";
  }
  auto resp = RemotingCommand::response(code, remark);
  resp.extFields.set("popTime", r.popTime);
  resp.extFields.set("invisibleTime", r.invisibleTime);
  resp.extFields.set("reviveQid", static_cast<int64_t>(r.reviveQid));
  resp.extFields.set("restNum", r.restNum);
  if (r.messages.empty()) return resp;
  resp.extFields.set("startOffsetInfo", offsetInfo(r, false));
  resp.extFields.set("msgOffsetInfo", offsetInfo(r, true));
  if (r.fifo) resp.extFields.set("orderCountInfo", orderCountInfo(r));
  for (const auto& m : r.messages) {
    auto withCk = poppedRecord(m.record, 1, m.receiptHandle);  // reconsumeTimes already set
    resp.body += withCk ? *withCk : m.record;
  }
  return resp;
}

Reply popMessage(PopService& service, RemotingCommand cmd) {
  auto req = decodePopRequest(cmd);
  if (!req) co_return failure(req.error());
  PopRequest copy = *req;
  auto r = co_await service.pop(std::move(copy));
  if (!r) co_return failure(r.error());
  co_return popAnswer(*req, *r);
}

// Who an ack / change is for: group, topic and the handle (extraInfo), which must name the
// message the header's offset names.
struct Target {
  std::string group, topic, handle;
};

Result<Target> targetOf(const RemotingCommand& cmd) {
  auto group = requireString(cmd, "consumerGroup");
  if (!group) return group.error();
  auto topic = requireString(cmd, "topic");
  if (!topic) return topic.error();
  auto extra = requireString(cmd, "extraInfo");
  if (!extra) return extra.error();
  auto h = decodeReceiptHandle(*extra);
  if (h && cmd.extFields.contains("offset") && optInt(cmd, "offset", -1) != h->queueOffset)
    return makeError(kInvalidReceiptHandle, fmt::format("receipt handle names offset {}, the request {}", h->queueOffset,
                                                        optInt(cmd, "offset", -1)));
  return Target{std::move(*group), std::move(*topic), std::move(*extra)};
}

Reply ackMessage(PopService& service, RemotingCommand cmd) {
  auto t = targetOf(cmd);
  if (!t) co_return failure(t.error());
  auto r = co_await service.ack(std::move(t->group), std::move(t->topic), std::move(t->handle));
  if (!r) co_return failure(r.error());
  co_return success();
}

Reply changeInvisibleTime(PopService& service, RemotingCommand cmd) {
  auto t = targetOf(cmd);
  if (!t) co_return failure(t.error());
  auto invisible = requireInt(cmd, "invisibleTime");
  if (!invisible) co_return failure(invisible.error());
  const int64_t invisibleTime = *invisible;
  auto r = co_await service.changeInvisible(std::move(t->group), std::move(t->topic), std::move(t->handle),
                                            invisibleTime);
  if (!r) co_return failure(r.error());
  auto h = decodeReceiptHandle(*r);
  auto resp = success();
  resp.extFields.set("popTime", h->popTime);
  resp.extFields.set("invisibleTime", h->invisibleTime);
  resp.extFields.set("reviveQid", static_cast<int64_t>(h->reviveQid));
  resp.extFields.set("extraInfo", *r);
  co_return resp;
}

// ---- BATCH_ACK_MESSAGE (5.x BatchAckMessageRequestBody) ----

// One BatchAck of the body: fastjson writes the short names, reads both.
struct BatchAckItem {
  std::string group, topic;
  int32_t queueId = 0;
  int64_t popTime = 0;
  std::vector<int64_t> offsets;  // startOffset + each bit set, ascending
  bool retry = false;            // "r": "1" = the 5.x retry topic, which holds nothing here
};

std::optional<std::string_view> stringOf(const rapidjson::Value& v, const char* shortName, const char* longName) {
  auto s = rmq::json::getString(v, shortName);
  return s ? s : rmq::json::getString(v, longName);
}

std::optional<int64_t> numberOf(const rapidjson::Value& v, const char* shortName, const char* longName) {
  auto n = rmq::json::getInt64(v, shortName);
  return n ? n : rmq::json::getInt64(v, longName);
}

// java.util.BitSet.toByteArray() (little-endian: bit i is byte i/8, bit i%8), base64 as fastjson
// writes a byte[].
std::vector<int64_t> offsetsOf(int64_t startOffset, std::string_view base64) {
  std::vector<int64_t> out;
  auto bytes = coord::base64Decode(base64);
  if (!bytes) return out;
  for (size_t i = 0; i < bytes->size(); ++i)
    for (int bit = 0; bit < 8; ++bit)
      if (static_cast<uint8_t>((*bytes)[i]) & (1u << bit)) out.push_back(startOffset + static_cast<int64_t>(i * 8 + bit));
  return out;
}

Result<std::vector<BatchAckItem>> decodeBatchAcks(std::string_view body, const std::string& brokerName) {
  rapidjson::Document doc;
  if (auto r = rmq::json::parse(body, doc); !r || !doc.IsObject()) return makeError(ResponseCode::NO_MESSAGE, "no acks");
  if (auto name = rmq::json::getString(doc, "brokerName"); name && !name->empty() && *name != brokerName)
    return std::vector<BatchAckItem>{};  // another broker's: nothing of it is in flight here
  if (!doc.HasMember("acks") || !doc["acks"].IsArray() || doc["acks"].Empty())
    return makeError(ResponseCode::NO_MESSAGE, "no acks");
  std::vector<BatchAckItem> out;
  for (const auto& a : doc["acks"].GetArray()) {
    if (!a.IsObject()) continue;
    BatchAckItem item;
    item.group = std::string(stringOf(a, "c", "consumerGroup").value_or(""));
    item.topic = std::string(stringOf(a, "t", "topic").value_or(""));
    item.retry = stringOf(a, "r", "retry").value_or("0") == "1";
    item.queueId = static_cast<int32_t>(numberOf(a, "q", "queueId").value_or(-1));
    item.popTime = numberOf(a, "pt", "popTime").value_or(0);
    item.offsets = offsetsOf(numberOf(a, "so", "startOffset").value_or(0), stringOf(a, "b", "bitSet").value_or(""));
    out.push_back(std::move(item));
  }
  return out;
}

// SUCCESS once every ack it could apply is stored; offsets not in flight are skipped, as 5.x
// does (its answer says nothing per ack either). NO_MESSAGE for a body without acks.
Reply batchAckMessage(PopService& service, std::string brokerName, RemotingCommand cmd) {
  auto acks = decodeBatchAcks(cmd.body, brokerName);
  if (!acks) co_return failure(acks.error());
  for (auto& a : *acks) {
    if (a.retry || a.offsets.empty()) continue;
    auto r = co_await service.ackBatch(std::move(a.group), std::move(a.topic), a.queueId, a.popTime,
                                       std::move(a.offsets));
    if (!r) co_return failure(r.error());  // not stored as configured: the client may send the batch again
  }
  co_return success();
}

// ---- PEEK_MESSAGE (5.x PeekMessageRequestHeader / PopMessageResponseHeader) ----

Reply peekMessage(PopService& service, RemotingCommand cmd) {
  auto group = requireString(cmd, "consumerGroup");
  if (!group) co_return failure(group.error());
  auto topic = requireString(cmd, "topic");
  if (!topic) co_return failure(topic.error());
  auto queueId = requireInt(cmd, "queueId");
  if (!queueId) co_return failure(queueId.error());
  auto maxNums = requireInt(cmd, "maxMsgNums");
  if (!maxNums) co_return failure(maxNums.error());
  auto r = service.peek(*group, *topic, static_cast<int32_t>(*queueId), static_cast<int32_t>(*maxNums));
  if (!r) co_return failure(r.error());
  // 5.x: the status name as the remark, the response header's other numbers at 0.
  auto resp = r->records.empty() ? RemotingCommand::response(ResponseCode::PULL_NOT_FOUND, "NO_MESSAGE_IN_QUEUE")
                                 : RemotingCommand::response(ResponseCode::SUCCESS, "FOUND");
  resp.extFields.set("popTime", int64_t{0});
  resp.extFields.set("invisibleTime", int64_t{0});
  resp.extFields.set("reviveQid", int64_t{0});
  resp.extFields.set("restNum", r->restNum);
  for (const auto& rec : r->records) resp.body += rec;
  co_return resp;
}

}  // namespace

void registerPopProcessors(BrokerContext& ctx, PopService& service) {
  PopService* s = &service;
  ctx.registerProcessor(RequestCode::POP_MESSAGE,
                        [s](net::ConnectionPtr, RemotingCommand cmd) { return popMessage(*s, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::ACK_MESSAGE,
                        [s](net::ConnectionPtr, RemotingCommand cmd) { return ackMessage(*s, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::CHANGE_MESSAGE_INVISIBLETIME, [s](net::ConnectionPtr, RemotingCommand cmd) {
    return changeInvisibleTime(*s, std::move(cmd));
  });
  ctx.registerProcessor(RequestCode::BATCH_ACK_MESSAGE, [s, &ctx](net::ConnectionPtr, RemotingCommand cmd) {
    return batchAckMessage(*s, ctx.config.brokerName, std::move(cmd));
  });
  ctx.registerProcessor(RequestCode::PEEK_MESSAGE,
                        [s](net::ConnectionPtr, RemotingCommand cmd) { return peekMessage(*s, std::move(cmd)); });
}

}  // namespace rmq::broker::pop
