#include "roles/broker/messaging/client_lifecycle.h"

#include "roles/broker/messaging/v2_status.h"

namespace rmq::broker::messaging {

void heartbeat(GrpcClientRegistry& registry, const std::string& clientId, v2::HeartbeatResponse& resp) {
  registry.touch(clientId);
  *resp.mutable_status() = okStatus();
}

void terminate(GrpcClientRegistry& registry, const std::string& clientId, v2::NotifyClientTerminationResponse& resp) {
  registry.remove(clientId);
  *resp.mutable_status() = okStatus();
}

}  // namespace rmq::broker::messaging
