#include "roles/broker/messaging/telemetry_service.h"

#include "common/log.h"
#include "roles/broker/messaging/proto_time.h"
#include "roles/broker/messaging/resource_namespace.h"
#include "roles/broker/messaging/v2_status.h"

namespace rmq::broker::messaging {

namespace {

google::protobuf::Duration millis(int64_t ms) { return fromMillis<google::protobuf::Duration>(ms); }

void exponential(v2::RetryPolicy& p, int32_t attempts, int64_t initialMs, int64_t maxMs) {
  p.set_max_attempts(attempts);
  auto* e = p.mutable_exponential_backoff();
  *e->mutable_initial() = millis(initialMs);
  *e->mutable_max() = millis(maxMs);
  e->set_multiplier(2);
}

// The default messageDelayLevel from level 3 (1s) on: the retry delays of a 4.x consumer group.
constexpr int64_t kRetryDelaysMs[] = {1000,   5000,   10000,  30000,  60000,   120000,  180000,  240000, 300000,
                                      360000, 420000, 480000, 540000, 600000, 1200000, 1800000, 3600000, 7200000};

std::string languageName(const v2::Settings& s, std::string_view header) {
  if (s.has_user_agent() && s.user_agent().language() != v2::Language::LANGUAGE_UNSPECIFIED)
    return v2::Language_Name(s.user_agent().language());
  return std::string(header);
}

}  // namespace

v2::Settings mergeSettings(const v2::Settings& client, const MessagingDeps& deps) {
  v2::Settings out = client;
  if (client.has_publishing()) {
    exponential(*out.mutable_backoff_policy(), 3, 10, 1000);
    auto* pub = out.mutable_publishing();
    pub->set_max_body_size(deps.maxMessageSize());
    pub->set_validate_message_type(true);
  } else if (client.has_subscription()) {
    auto* sub = out.mutable_subscription();
    GroupSettings g = deps.group ? deps.group(sub->group().name()).value_or(GroupSettings{}) : GroupSettings{};
    sub->set_fifo(g.orderly);
    sub->set_receive_batch_size(32);
    *sub->mutable_long_polling_timeout() = millis(20000);
    auto* policy = out.mutable_backoff_policy();
    if (g.orderly) {
      exponential(*policy, g.retryMaxTimes + 1, 1000, 1000);
    } else {
      policy->set_max_attempts(g.retryMaxTimes + 1);
      auto* c = policy->mutable_customized_backoff();
      for (int64_t ms : kRetryDelaysMs) *c->add_next() = millis(ms);
    }
  }
  return out;
}

bool TelemetryService::onCommand(const grpc::ServerCallPtr& call, const std::string& clientId,
                                 const v2::TelemetryCommand& cmd, const SettingsCheck& check) {
  v2::TelemetryCommand reply;
  switch (cmd.command_case()) {
    case v2::TelemetryCommand::kSettings: {
      const auto& s = cmd.settings();
      if (check) {
        if (auto denied = check(s)) {
          *reply.mutable_status() = std::move(*denied);
          call->write(reply.SerializeAsString());
          call->finish(grpc::Status::ok());
          return false;
        }
      }
      std::string version(s.has_user_agent() ? s.user_agent().version() : std::string(call->metadata("x-mq-client-version")));
      registry_.onSettings(clientId, s, call, languageName(s, call->metadata("x-mq-language")), std::move(version));
      if (s.has_subscription() && deps_.consumerJoined) deps_.consumerJoined(s.subscription().group().name());
      *reply.mutable_status() = okStatus();
      *reply.mutable_settings() = mergeSettings(s, deps_);
      unwrapResources(reply, call->metadata(kNamespaceHeader));
      call->write(reply.SerializeAsString());
      return true;
    }
    case v2::TelemetryCommand::kThreadStackTrace:  // the answer of an admin's consumerStatus -s
      if (!registry_.onAnswer(clientId, cmd))
        log::info("5.x client {}: a thread stack trace nobody waits for (nonce {})", clientId,
                  cmd.thread_stack_trace().nonce());
      return true;
    case v2::TelemetryCommand::kVerifyMessageResult:  // the answer of an admin's consumeMessage
    case v2::TelemetryCommand::kVerifyMessageCommand:  // the Node client answers with the command (NOT_IMPLEMENTED)
      if (!registry_.onAnswer(clientId, cmd))
        log::info("5.x client {}: a verify result nobody waits for", clientId);
      return true;
    default:
      *reply.mutable_status() = makeStatus(v2::Code::BAD_REQUEST, "a client sends settings, thread_stack_trace or "
                                                                  "verify_message_result on Telemetry");
      call->write(reply.SerializeAsString());
      return true;
  }
}

asio::awaitable<void> TelemetryService::run(grpc::ServerCallPtr call, std::string clientId, SettingsCheck check) {
  const std::string ns(call->metadata(kNamespaceHeader));
  for (;;) {
    auto bytes = co_await call->read();
    if (!bytes) break;
    v2::TelemetryCommand cmd;
    if (!cmd.ParseFromString(*bytes)) {
      call->finish({grpc::StatusCode::INVALID_ARGUMENT, "malformed apache.rocketmq.v2.TelemetryCommand"});
      break;
    }
    if (!ns.empty()) wrapResources(cmd, ns);
    if (!onCommand(call, clientId, cmd, check)) break;
  }
  registry_.onTelemetryEnd(clientId, call.get());
  call->finish(grpc::Status::ok());  // after a client half-close; a no-op when already over
}

}  // namespace rmq::broker::messaging
