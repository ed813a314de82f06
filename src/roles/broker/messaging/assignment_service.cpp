#include "roles/broker/messaging/assignment_service.h"

#include "common/response_code.h"
#include "roles/broker/messaging/route_service.h"
#include "roles/broker/messaging/v2_status.h"
#include "roles/broker/metadata/topic_config.h"

namespace rmq::broker::messaging {

namespace {

void assign(v2::QueryAssignmentResponse& resp, const v2::Resource& topic, const v2::Broker& broker, int32_t queueId,
            v2::Permission perm) {
  auto* mq = resp.add_assignments()->mutable_message_queue();
  *mq->mutable_topic() = topic;
  mq->set_id(queueId);
  mq->set_permission(perm);
  *mq->mutable_broker() = broker;
}

}  // namespace

asio::awaitable<void> AssignmentService::queryAssignment(const v2::QueryAssignmentRequest& req,
                                                         v2::QueryAssignmentResponse& resp) {
  const std::string& topic = req.topic().name();
  if (topic.empty()) {
    *resp.mutable_status() = makeStatus(v2::Code::ILLEGAL_TOPIC, "topic name is empty");
    co_return;
  }
  if (req.group().name().empty()) {
    *resp.mutable_status() = makeStatus(v2::Code::ILLEGAL_CONSUMER_GROUP, "group name is empty");
    co_return;
  }
  auto route = co_await deps_.queryRoute(topic);
  if (!route) {
    *resp.mutable_status() = route.error().code == ResponseCode::TOPIC_NOT_EXIST
                                 ? makeStatus(v2::Code::TOPIC_NOT_FOUND, topicNotFoundText(topic))
                                 : makeStatus(v2::Code::INTERNAL_SERVER_ERROR, route.error().message);
    co_return;
  }
  std::optional<GroupSettings> group = deps_.group ? deps_.group(req.group().name()) : std::nullopt;
  const bool fifo = group && group->orderly;
  for (const auto& q : route->queueDatas) {
    const BrokerData* b = route->broker(q.brokerName);
    const std::string* master = b ? b->masterAddr() : nullptr;
    if (!master || !perm::isReadable(q.perm) || q.readQueueNums <= 0) continue;
    int port = co_await deps_.grpcPortOf(*master);
    if (port <= 0) continue;
    v2::Broker broker;
    broker.set_name(q.brokerName);
    broker.set_id(0);
    *broker.mutable_endpoints() = endpointsOf(*master, port);
    const auto p = perm::isWriteable(q.perm) ? v2::Permission::READ_WRITE : v2::Permission::READ;
    if (!fifo) {
      assign(resp, req.topic(), broker, -1, p);
      continue;
    }
    for (int32_t i = 0; i < q.readQueueNums; ++i) assign(resp, req.topic(), broker, i, p);
  }
  *resp.mutable_status() = resp.assignments_size() == 0
                               ? makeStatus(v2::Code::FORBIDDEN, "no readable queue of topic " + topic)
                               : okStatus();
}

}  // namespace rmq::broker::messaging
