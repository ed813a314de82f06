#include "roles/broker/messaging/ack_service.h"

#include "roles/broker/messaging/proto_time.h"
#include "roles/broker/messaging/receive_service.h"

namespace rmq::broker::messaging {

std::optional<v2::Status> AckService::precheck(const v2::Resource& group, const v2::Resource& topic) const {
  if (!deps_.pop.ack) return makeStatus(v2::Code::INTERNAL_SERVER_ERROR, "POP is not available on this broker");
  if (group.name().empty()) return makeStatus(v2::Code::ILLEGAL_CONSUMER_GROUP, "group name is empty");
  if (topic.name().empty()) return makeStatus(v2::Code::ILLEGAL_TOPIC, "topic name is empty");
  return std::nullopt;
}

asio::awaitable<void> AckService::ack(const v2::AckMessageRequest& req, v2::AckMessageResponse& resp) {
  if (auto refused = precheck(req.group(), req.topic())) {
    *resp.mutable_status() = std::move(*refused);
    co_return;
  }
  std::optional<v2::Status> firstFailure;
  for (const auto& e : req.entries()) {
    auto* out = resp.add_entries();
    out->set_message_id(e.message_id());
    out->set_receipt_handle(e.receipt_handle());
    auto latest = renewer_.take(e.receipt_handle());
    std::string handle = co_await std::move(latest);
    auto task = deps_.pop.ack(req.group().name(), req.topic().name(), std::move(handle));
    auto done = co_await std::move(task);
    *out->mutable_status() = done ? okStatus() : popErrorStatus(done.error());
    if (!done && !firstFailure) firstFailure = out->status();
  }
  *resp.mutable_status() = firstFailure ? std::move(*firstFailure) : okStatus();
}

asio::awaitable<void> AckService::changeInvisible(const v2::ChangeInvisibleDurationRequest& req,
                                                  v2::ChangeInvisibleDurationResponse& resp) {
  if (auto refused = precheck(req.group(), req.topic())) {
    *resp.mutable_status() = std::move(*refused);
    co_return;
  }
  const int64_t ms = toMillis(req.invisible_duration());
  if (ms < 0 || ms > kMaxInvisibleMs) {
    *resp.mutable_status() = makeStatus(v2::Code::ILLEGAL_INVISIBLE_TIME,
                                        "invisible_duration " + std::to_string(ms) + " ms is out of [0, 12 h]");
    co_return;
  }
  std::string handle = co_await renewer_.take(req.receipt_handle());
  auto task = deps_.pop.changeInvisible(req.group().name(), req.topic().name(), std::move(handle),
                                        std::max<int64_t>(1, ms));
  auto next = co_await std::move(task);
  if (!next) {
    *resp.mutable_status() = popErrorStatus(next.error());
    co_return;
  }
  resp.set_receipt_handle(std::move(*next));
  *resp.mutable_status() = okStatus();
}

asio::awaitable<void> AckService::toDeadLetter(const v2::ForwardMessageToDeadLetterQueueRequest& req,
                                               v2::ForwardMessageToDeadLetterQueueResponse& resp) {
  if (auto refused = precheck(req.group(), req.topic())) {
    *resp.mutable_status() = std::move(*refused);
    co_return;
  }
  std::string handle = co_await renewer_.take(req.receipt_handle());
  auto task = deps_.pop.toDeadLetter(req.group().name(), req.topic().name(), std::move(handle));
  auto done = co_await std::move(task);
  *resp.mutable_status() = done ? okStatus() : popErrorStatus(done.error());
}

}  // namespace rmq::broker::messaging
