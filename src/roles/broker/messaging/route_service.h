#pragma once
// QueryRoute: the topic's route for the whole cluster, read through the name servers from any
// broker (the access point). One MessageQueue per queue id of every master, its permission as the
// 5.x proxy splits it (read-only, write-only, read-write, none), the master's gRPC endpoint
// (its remoting host + the gRPC port it serves, messaging_deps grpcPortOf), and the types the topic
// accepts (`message.type` attribute; none = NORMAL). Slaves are left out: the Node client picks
// queue id 0 of any broker entry and would send to a slave.
#include <asio/awaitable.hpp>
#include <string>

#include "apache/rocketmq/v2/service.pb.h"
#include "roles/broker/messaging/messaging_deps.h"
#include "roles/broker/messaging/v2_status.h"

namespace rmq::broker::messaging {

// "NORMAL" / "FIFO" / "DELAY" / "TRANSACTION" / "MIXED" (all four) / "" (NORMAL) -> accepted types;
// empty for an unknown name.
std::vector<v2::MessageType> acceptedTypes(std::string_view messageTypeAttribute);
// A broker's gRPC endpoint: the host of its remoting address `host:port` with `grpcPort`.
v2::Endpoints endpointsOf(std::string_view remotingAddr, int grpcPort);
// What the 5.x client expects for a topic no name server knows (code TOPIC_NOT_FOUND).
std::string topicNotFoundText(std::string_view topic);

class RouteService {
 public:
  explicit RouteService(MessagingDeps& deps) : deps_(deps) {}
  asio::awaitable<void> queryRoute(const v2::QueryRouteRequest& req, v2::QueryRouteResponse& resp);

 private:
  MessagingDeps& deps_;
};

}  // namespace rmq::broker::messaging
