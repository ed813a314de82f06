#pragma once
// QueryAssignment (5.x push consumers): which queues a push consumer of `group` polls, as the
// proxy assigns them (RouteActivity, research §1.4): a normal group gets one assignment per
// readable master with queue id -1 (the pop takes every queue of that broker); a FIFO group
// (consumeMessageOrderly) one per read queue of every readable master; none readable -> FORBIDDEN.
// Brokers that serve no gRPC port are left out, as in QueryRoute.
#include <asio/awaitable.hpp>

#include "apache/rocketmq/v2/service.pb.h"
#include "roles/broker/messaging/messaging_deps.h"
#include "roles/broker/messaging/v2_status.h"

namespace rmq::broker::messaging {

class AssignmentService {
 public:
  explicit AssignmentService(MessagingDeps& deps) : deps_(deps) {}
  asio::awaitable<void> queryAssignment(const v2::QueryAssignmentRequest& req, v2::QueryAssignmentResponse& resp);

 private:
  MessagingDeps& deps_;
};

}  // namespace rmq::broker::messaging
