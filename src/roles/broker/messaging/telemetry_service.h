#pragma once
// Telemetry (bidirectional stream): the client's Settings are answered with the merged settings
// the official clients wait for before they start (the 5.x proxy's values, research §1.4):
//   producer: backoff EXPONENTIAL, 3 attempts, 10 ms -> 1 s x2; publishing.max_body_size = the
//             broker's maxMessageSize; validate_message_type = true;
//   consumer: subscription.fifo = the group's consumeMessageOrderly, receive_batch_size 32,
//             long_polling_timeout 20 s; backoff max_attempts = retryMaxTimes + 1 with the delay
//             levels from 1 s (customized; FIFO groups: exponential).
// The stream stays open (server -> client commands travel on it: grpc_clients.h) until the client
// half-closes or goes; answers to our commands (ThreadStackTrace, VerifyMessageResult) are logged.
#include <asio/awaitable.hpp>
#include <functional>
#include <optional>

#include "grpc/server_call.h"
#include "roles/broker/messaging/grpc_clients.h"
#include "roles/broker/messaging/messaging_deps.h"

namespace rmq::broker::messaging {

// The settings answer for `client` (pure: unit-tested).
v2::Settings mergeSettings(const v2::Settings& client, const MessagingDeps& deps);

class TelemetryService {
 public:
  TelemetryService(MessagingDeps& deps, GrpcClientRegistry& registry) : deps_(deps), registry_(registry) {}
  // The ACL's verdict on a client's Settings (null: no ACL): a refusal is answered on the stream
  // as a status and the stream ends.
  using SettingsCheck = std::function<std::optional<v2::Status>(const v2::Settings&)>;
  asio::awaitable<void> run(grpc::ServerCallPtr call, std::string clientId, SettingsCheck check);

 private:
  // false: the stream was ended here.
  bool onCommand(const grpc::ServerCallPtr& call, const std::string& clientId, const v2::TelemetryCommand& cmd,
                 const SettingsCheck& check);

  MessagingDeps& deps_;
  GrpcClientRegistry& registry_;
};

}  // namespace rmq::broker::messaging
