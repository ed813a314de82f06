#pragma once
// Heartbeat and NotifyClientTermination of 5.x clients: a heartbeat keeps the client's producer
// channels fresh in the ClientManager (its 120 s expiry, as 4.x heartbeats); termination removes
// the client and its channels at once.
#include <string>

#include "apache/rocketmq/v2/service.pb.h"
#include "roles/broker/messaging/grpc_clients.h"

namespace rmq::broker::messaging {

void heartbeat(GrpcClientRegistry& registry, const std::string& clientId, v2::HeartbeatResponse& resp);
void terminate(GrpcClientRegistry& registry, const std::string& clientId, v2::NotifyClientTerminationResponse& resp);

}  // namespace rmq::broker::messaging
