#include "roles/broker/pop/pop_processor.h"

#include <fmt/format.h>

#include "common/request_code.h"
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
}

}  // namespace rmq::broker::pop
