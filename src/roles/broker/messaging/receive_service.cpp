#include "roles/broker/messaging/receive_service.h"

#include <asio/use_awaitable.hpp>

#include "common/log.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "roles/broker/messaging/message_mapping.h"
#include "roles/broker/messaging/resource_namespace.h"
#include "roles/broker/messaging/proto_time.h"
#include "roles/broker/delivery/pull_request_hold.h"

namespace rmq::broker::messaging {

namespace {

constexpr int64_t kMinInvisibleMs = 1000;
constexpr auto kAnswerMargin = std::chrono::milliseconds(500);
constexpr int32_t kMaxBatch = 32;
constexpr int64_t kReleaseMs = 1;  // "visible again at once" (a change needs a positive time)


void writeStatus(grpc::ServerCall& call, v2::Status s) {
  v2::ReceiveMessageResponse r;
  *r.mutable_status() = std::move(s);
  call.write(r.SerializeAsString());
}

}  // namespace

v2::Status popErrorStatus(const Error& e) {
  switch (e.code) {
    case pop::kInvalidReceiptHandle: return makeStatus(v2::Code::INVALID_RECEIPT_HANDLE, e.message);
    case ResponseCode::SUBSCRIPTION_PARSE_FAILED: return makeStatus(v2::Code::ILLEGAL_FILTER_EXPRESSION, e.message);
    case ResponseCode::SERVICE_NOT_AVAILABLE: return makeStatus(v2::Code::INTERNAL_SERVER_ERROR, e.message);
    default: return makeStatus(codeOfResponse(e.code), e.message);
  }
}

ReceivePlan planReceive(const v2::ReceiveMessageRequest& req, std::string_view brokerName,
                        std::chrono::steady_clock::time_point now, std::chrono::steady_clock::time_point deadline) {
  ReceivePlan plan;
  auto refuse = [&](v2::Code c, std::string text) {
    plan.refused = makeStatus(c, std::move(text));
    return plan;
  };
  pop::PopRequest& p = plan.pop;
  p.group = req.group().name();
  p.topic = req.message_queue().topic().name();
  if (p.group.empty()) return refuse(v2::Code::ILLEGAL_CONSUMER_GROUP, "group name is empty");
  if (p.topic.empty()) return refuse(v2::Code::ILLEGAL_TOPIC, "topic name is empty");
  const auto& broker = req.message_queue().broker().name();
  if (!broker.empty() && broker != brokerName)
    return refuse(v2::Code::NOT_FOUND, "broker " + broker + " is not served here (this is " + std::string(brokerName) + ")");
  p.queueId = -1;
  p.maxNums = std::clamp(req.batch_size(), 1, kMaxBatch);
  if (req.auto_renew()) {
    p.invisibleTime = kAutoRenewInvisibleMs;
  } else {
    if (!req.has_invisible_duration()) return refuse(v2::Code::ILLEGAL_INVISIBLE_TIME, "invisible_duration is required");
    p.invisibleTime = toMillis(req.invisible_duration());
    if (p.invisibleTime < kMinInvisibleMs || p.invisibleTime > kMaxInvisibleMs)
      return refuse(v2::Code::ILLEGAL_INVISIBLE_TIME,
                    "invisible_duration " + std::to_string(p.invisibleTime) + " ms is out of [1 s, 12 h]");
  }
  int64_t poll = req.has_long_polling_timeout() ? toMillis(req.long_polling_timeout()) : kMaxLongPollingMs;
  poll = std::clamp<int64_t>(poll, 0, kMaxLongPollingMs);
  if (deadline != std::chrono::steady_clock::time_point::max()) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now - kAnswerMargin).count();
    poll = std::clamp<int64_t>(left, 0, poll);
  }
  p.pollTime = poll;
  const auto& f = req.filter_expression();
  p.expressionType = f.type() == v2::FilterType::SQL ? "SQL92" : "TAG";
  p.expression = f.expression().empty() ? "*" : f.expression();
  p.attemptId = req.has_attempt_id() ? req.attempt_id() : std::string();
  return plan;
}

asio::awaitable<Result<pop::PopResult>> ReceiveService::popCancellable(const grpc::ServerCallPtr& call,
                                                                       pop::PopRequest req) {
  // The call's cancel (client gone, deadline) ends the parked pop.
  auto cancel = std::make_shared<ParkCancel>();
  call->setCancelHandler([cancel] { cancel->cancel(); });
  req.cancel = cancel;
  auto task = deps_.pop.pop(std::move(req));
  auto r = co_await std::move(task);
  call->setCancelHandler([] {});
  co_return r;
}

size_t ReceiveService::writeMessages(grpc::ServerCall& call, const pop::PopResult& r) {
  size_t written = 0;
  for (const auto& m : r.messages) {
    auto v = toDeliveredMessage({m.record, m.receiptHandle, m.deliveryAttempt, m.queueId, m.queueOffset});
    if (!v) {
      // Comes back after its invisible time and ends in the DLQ like any unconsumable message.
      log::error("ReceiveMessage: the record of queue {} offset {} does not decode; not delivered", m.queueId,
                 m.queueOffset);
      ++written;
      continue;
    }
    v2::ReceiveMessageResponse resp;
    *resp.mutable_message() = std::move(*v);
    unwrapResources(resp, call.metadata(kNamespaceHeader));
    if (!call.write(resp.SerializeAsString())) break;
    ++written;
  }
  return written;
}

asio::awaitable<void> ReceiveService::release(const pop::PopRequest& req, const pop::PopResult& r, size_t from) {
  for (size_t i = from; i < r.messages.size(); ++i) {
    auto change = deps_.pop.changeInvisible(req.group, req.topic, r.messages[i].receiptHandle, kReleaseMs);
    auto done = co_await std::move(change);
    if (!done) log::warn("ReceiveMessage: releasing an undelivered message failed: {}", done.error().message);
  }
}

asio::awaitable<void> ReceiveService::receive(grpc::ServerCallPtr call, std::string clientId,
                                              v2::ReceiveMessageRequest req) {
  if (!deps_.pop.pop) {
    writeStatus(*call, makeStatus(v2::Code::INTERNAL_SERVER_ERROR, "POP is not available on this broker"));
    call->finish(grpc::Status::ok());
    co_return;
  }
  ReceivePlan plan = planReceive(req, deps_.brokerName, std::chrono::steady_clock::now(), call->deadline());
  if (plan.refused) {
    writeStatus(*call, std::move(*plan.refused));
    call->finish(grpc::Status::ok());
    co_return;
  }
  auto r = co_await popCancellable(call, plan.pop);
  if (!r) {
    writeStatus(*call, popErrorStatus(r.error()));
    call->finish(grpc::Status::ok());
    co_return;
  }
  if (r->status == pop::PopResult::Status::PollingFull) {
    writeStatus(*call, makeStatus(v2::Code::TOO_MANY_REQUESTS, "too many parked receives, retry later"));
  } else if (r->messages.empty()) {
    writeStatus(*call, makeStatus(v2::Code::MESSAGE_NOT_FOUND, "no new message"));
  } else {
    writeStatus(*call, okStatus());
    const size_t taken = call->done() ? 0 : writeMessages(*call, *r);
    if (taken < r->messages.size()) co_await release(plan.pop, *r, taken);
    if (req.auto_renew()) {
      for (size_t i = 0; i < taken; ++i)
        renewer_.track(call->executor(), {clientId, plan.pop.group, plan.pop.topic, r->messages[i].receiptHandle,
                                          plan.pop.invisibleTime});
    }
    v2::ReceiveMessageResponse ts;
    *ts.mutable_delivery_timestamp() = fromMillis<google::protobuf::Timestamp>(nowMillis());
    call->write(ts.SerializeAsString());
  }
  call->finish(grpc::Status::ok());
}

}  // namespace rmq::broker::messaging
