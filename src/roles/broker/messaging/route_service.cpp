#include "roles/broker/messaging/route_service.h"

#include "common/log.h"
#include "common/response_code.h"
#include "roles/broker/messaging/v2_status.h"
#include "roles/broker/metadata/topic_config.h"

namespace rmq::broker::messaging {

v2::Endpoints endpointsOf(std::string_view remotingAddr, int grpcPort) {
  std::string host(remotingAddr.substr(0, remotingAddr.rfind(':')));
  HostAddress parsed;
  v2::Endpoints e;
  if (HostAddress::parse(host, parsed)) {
    e.set_scheme(parsed.v6 ? v2::AddressScheme::IPv6 : v2::AddressScheme::IPv4);
    if (parsed.v6 && host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  } else {
    e.set_scheme(v2::AddressScheme::DOMAIN_NAME);
  }
  auto* a = e.add_addresses();
  a->set_host(host);
  a->set_port(grpcPort);
  return e;
}

namespace {

// The proxy's split of a broker's queues: read-only first, then write-only, read-write, none.
void addQueues(const QueueData& q, const v2::Resource& topic, const v2::Broker& broker,
               const std::vector<v2::MessageType>& types, v2::QueryRouteResponse& resp) {
  int r = 0, w = 0, rw = 0, n = 0;
  const bool readable = perm::isReadable(q.perm), writeable = perm::isWriteable(q.perm);
  if (readable && writeable) {
    rw = std::min(q.writeQueueNums, q.readQueueNums);
    r = q.readQueueNums - rw;
    w = q.writeQueueNums - rw;
  } else if (writeable) {
    w = q.writeQueueNums;
  } else if (readable) {
    r = q.readQueueNums;
  } else {
    n = std::max(1, std::max(q.writeQueueNums, q.readQueueNums));
  }
  int id = 0;
  auto emit = [&](int count, v2::Permission p) {
    for (int i = 0; i < count; ++i) {
      auto* mq = resp.add_message_queues();
      *mq->mutable_topic() = topic;
      mq->set_id(id++);
      mq->set_permission(p);
      *mq->mutable_broker() = broker;
      for (auto t : types) mq->add_accept_message_types(t);
    }
  };
  emit(r, v2::Permission::READ);
  emit(w, v2::Permission::WRITE);
  emit(rw, v2::Permission::READ_WRITE);
  emit(n, v2::Permission::NONE);
}

}  // namespace

std::vector<v2::MessageType> acceptedTypes(std::string_view t) {
  if (t.empty() || t == "NORMAL") return {v2::MessageType::NORMAL};
  if (t == "FIFO") return {v2::MessageType::FIFO};
  if (t == "DELAY") return {v2::MessageType::DELAY};
  if (t == "TRANSACTION") return {v2::MessageType::TRANSACTION};
  if (t == "MIXED")
    return {v2::MessageType::NORMAL, v2::MessageType::FIFO, v2::MessageType::DELAY, v2::MessageType::TRANSACTION};
  return {};
}

std::string topicNotFoundText(std::string_view topic) {
  // The text of Java's MQClientException for the name server's TOPIC_NOT_EXIST (17), which the
  // 5.x proxy hands on and the clients show.
  return "CODE: 17  DESC: No topic route info in name server for the topic: " + std::string(topic);
}

asio::awaitable<void> RouteService::queryRoute(const v2::QueryRouteRequest& req, v2::QueryRouteResponse& resp) {
  const std::string& topic = req.topic().name();
  if (topic.empty()) {
    *resp.mutable_status() = makeStatus(v2::Code::ILLEGAL_TOPIC, "topic name is empty");
    co_return;
  }
  auto route = co_await deps_.queryRoute(topic);
  if (!route) {
    if (route.error().code == ResponseCode::TOPIC_NOT_EXIST) {
      *resp.mutable_status() = makeStatus(v2::Code::TOPIC_NOT_FOUND, topicNotFoundText(topic));
    } else {
      *resp.mutable_status() = makeStatus(v2::Code::INTERNAL_SERVER_ERROR,
                                          "no name server answered the route of " + topic + ": " + route.error().message);
    }
    co_return;
  }
  auto local = deps_.localTopic(topic);
  auto types = acceptedTypes(local ? local->messageType : "");
  for (const auto& q : route->queueDatas) {
    const BrokerData* b = route->broker(q.brokerName);
    const std::string* master = b ? b->masterAddr() : nullptr;
    if (!master) continue;  // no master now: nothing to send to
    int port = co_await deps_.grpcPortOf(*master);
    if (port <= 0) {
      log::warn("QueryRoute {}: broker {} ({}) serves no gRPC port, left out", topic, q.brokerName, *master);
      continue;
    }
    v2::Broker broker;
    broker.set_name(q.brokerName);
    broker.set_id(0);
    *broker.mutable_endpoints() = endpointsOf(*master, port);
    addQueues(q, req.topic(), broker, types, resp);
  }
  if (resp.message_queues_size() == 0) {
    *resp.mutable_status() = makeStatus(v2::Code::NOT_FOUND, "no master of topic " + topic + " serves gRPC");
    co_return;
  }
  *resp.mutable_status() = okStatus();
}

}  // namespace rmq::broker::messaging
