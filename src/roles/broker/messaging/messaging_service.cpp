#include "roles/broker/messaging/messaging_service.h"

#include "acl/permission.h"
#include "common/log.h"
#include "common/request_code.h"
#include "roles/broker/messaging/client_lifecycle.h"
#include "roles/broker/messaging/resource_namespace.h"
#include "roles/broker/messaging/unary_call.h"

namespace rmq::broker::messaging {

namespace {

std::string retryGroup(const std::string& group) { return std::string(acl::kRetryGroupTopicPrefix) + group; }

// What each request touches for the ACL, with the 4.x request code it stands for.
struct AclNeed {
  int code = 0;
  AclResources resources;
};
AclNeed aclOf(const v2::QueryRouteRequest& r) { return {RequestCode::GET_ROUTEINFO_BY_TOPIC, {{r.topic().name(), acl::Perm::ANY}}}; }
AclNeed aclOf(const v2::HeartbeatRequest& r) {
  AclNeed n{RequestCode::HEART_BEAT, {}};
  if (r.has_group() && !r.group().name().empty()) n.resources.emplace_back(retryGroup(r.group().name()), acl::Perm::SUB);
  return n;
}
AclNeed aclOf(const v2::SendMessageRequest& r) {
  AclNeed n{RequestCode::SEND_MESSAGE, {}};
  for (const auto& m : r.messages()) n.resources.emplace_back(m.topic().name(), acl::Perm::PUB);
  return n;
}
AclNeed aclOf(const v2::EndTransactionRequest& r) { return {RequestCode::END_TRANSACTION, {{r.topic().name(), acl::Perm::PUB}}}; }
AclNeed aclOf(const v2::NotifyClientTerminationRequest& r) {
  AclNeed n{RequestCode::UNREGISTER_CLIENT, {}};
  if (r.has_group() && !r.group().name().empty()) n.resources.emplace_back(retryGroup(r.group().name()), acl::Perm::SUB);
  return n;
}
AclNeed aclOf(const v2::RecallMessageRequest& r) { return {RequestCode::SEND_MESSAGE, {{r.topic().name(), acl::Perm::PUB}}}; }
// A consumer's RPCs: the group (its retry topic) SUB and the topic SUB, as a 4.x pull.
AclNeed consumerNeed(int code, const v2::Resource& group, const v2::Resource& topic) {
  AclNeed n{code, {}};
  if (!group.name().empty()) n.resources.emplace_back(retryGroup(group.name()), acl::Perm::SUB);
  n.resources.emplace_back(topic.name(), acl::Perm::SUB);
  return n;
}
AclNeed aclOf(const v2::QueryAssignmentRequest& r) { return consumerNeed(RequestCode::HEART_BEAT, r.group(), r.topic()); }
AclNeed aclOf(const v2::ReceiveMessageRequest& r) {
  return consumerNeed(RequestCode::PULL_MESSAGE, r.group(), r.message_queue().topic());
}
AclNeed aclOf(const v2::AckMessageRequest& r) { return consumerNeed(RequestCode::PULL_MESSAGE, r.group(), r.topic()); }
AclNeed aclOf(const v2::ChangeInvisibleDurationRequest& r) {
  return consumerNeed(RequestCode::PULL_MESSAGE, r.group(), r.topic());
}
AclNeed aclOf(const v2::ForwardMessageToDeadLetterQueueRequest& r) {
  return consumerNeed(RequestCode::CONSUMER_SEND_MSG_BACK, r.group(), r.topic());
}
AclNeed aclOf(const v2::Settings& s) {
  AclNeed n{RequestCode::HEART_BEAT, {}};
  if (s.has_publishing())
    for (const auto& t : s.publishing().topics()) n.resources.emplace_back(t.name(), acl::Perm::PUB);
  if (s.has_subscription()) {
    n.resources.emplace_back(retryGroup(s.subscription().group().name()), acl::Perm::SUB);
    for (const auto& e : s.subscription().subscriptions()) n.resources.emplace_back(e.topic().name(), acl::Perm::SUB);
  }
  return n;
}

v2::Status clientIdRequired() {
  return makeStatus(v2::Code::CLIENT_ID_REQUIRED, "the request has no x-mq-client-id metadata");
}

// The 5.x lite consumers' RPCs (offsets, pull).
constexpr std::string_view kNotYet[] = {"PullMessage", "UpdateOffset", "GetOffset", "QueryOffset",
                                        "SyncLiteSubscription"};

asio::awaitable<void> unimplemented(grpc::ServerCallPtr call) {
  call->finish({grpc::StatusCode::UNIMPLEMENTED,
                call->path() + " is not served by rmqnode yet (5.x lite / pull consumers)"});
  co_return;
}

}  // namespace

MessagingService::MessagingService(MessagingDeps deps, const acl::AclManager* acl)
    : deps_(std::move(deps)),
      acl_(acl),
      registry_(deps_.clients, txs_),
      route_(deps_),
      telemetry_(deps_, registry_),
      send_(deps_, txs_),
      transaction_(deps_, txs_),
      renewer_(deps_.pop),
      assignment_(deps_),
      receive_(deps_, renewer_),
      ack_(deps_, renewer_) {}

template <class Req, class Resp>
bool MessagingService::admitted(grpc::ServerCall& call, const Req& req, Resp& resp) {
  if (call.metadata("x-mq-client-id").empty()) {
    *resp.mutable_status() = clientIdRequired();
    return false;
  }
  if (!acl_.enabled()) return true;
  AclNeed need = aclOf(req);
  if (auto denied = acl_.check(call, need.code, need.resources)) {
    *resp.mutable_status() = std::move(*denied);
    return false;
  }
  return true;
}

template <class Req, class Resp, auto Method>
asio::awaitable<void> MessagingService::unary(grpc::ServerCallPtr call) {
  Req req;
  bool ok = co_await readRequest(*call, req);
  if (!ok) co_return;
  const std::string_view ns = call->metadata(kNamespaceHeader);
  if (!ns.empty()) wrapResources(req, ns);  // "ns%topic" from here on: the ACL and the services too
  Resp resp;
  if (!admitted(*call, req, resp)) {
    answer(*call, resp);
    co_return;
  }
  co_await (this->*Method)(*call, req, resp);
  unwrapResources(resp, ns);
  answer(*call, resp);
}

asio::awaitable<void> MessagingService::receive(grpc::ServerCallPtr call) {
  v2::ReceiveMessageRequest req;
  bool ok = co_await readRequest(*call, req);
  if (!ok) co_return;
  if (auto ns = call->metadata(kNamespaceHeader); !ns.empty()) wrapResources(req, ns);  // messages: writeMessages
  v2::ReceiveMessageResponse refused;
  if (!admitted(*call, req, refused)) {
    answer(*call, refused);
    co_return;
  }
  std::string clientId(call->metadata("x-mq-client-id"));
  co_await receive_.receive(std::move(call), std::move(clientId), std::move(req));
}

asio::awaitable<void> MessagingService::telemetry(grpc::ServerCallPtr call) {
  std::string clientId(call->metadata("x-mq-client-id"));
  if (clientId.empty()) {
    v2::TelemetryCommand reply;
    *reply.mutable_status() = clientIdRequired();
    answer(*call, reply);
    co_return;
  }
  if (acl_.enabled()) {
    // The stream's own metadata is signed once; its Settings name the resources.
    TelemetryService::SettingsCheck check = [this, call](const v2::Settings& s) {
      AclNeed need = aclOf(s);
      return acl_.check(*call, need.code, need.resources);
    };
    co_await telemetry_.run(call, clientId, std::move(check));
  } else {
    co_await telemetry_.run(call, clientId, nullptr);
  }
  // auto_renew lasts while the client's Telemetry does (the proxy's rule).
  renewer_.clientGone(clientId);
}

asio::awaitable<void> MessagingService::onQueryRoute(grpc::ServerCall&, const v2::QueryRouteRequest& req,
                                                     v2::QueryRouteResponse& resp) {
  co_await route_.queryRoute(req, resp);
}

asio::awaitable<void> MessagingService::onHeartbeat(grpc::ServerCall& call, const v2::HeartbeatRequest&,
                                                    v2::HeartbeatResponse& resp) {
  heartbeat(registry_, std::string(call.metadata("x-mq-client-id")), resp);
  co_return;
}

asio::awaitable<void> MessagingService::onSend(grpc::ServerCall& call, const v2::SendMessageRequest& req,
                                               v2::SendMessageResponse& resp) {
  co_await send_.send(req, call.peerAddress(), resp);
}

asio::awaitable<void> MessagingService::onEnd(grpc::ServerCall&, const v2::EndTransactionRequest& req,
                                              v2::EndTransactionResponse& resp) {
  transaction_.endTransaction(req, resp);
  co_return;
}

asio::awaitable<void> MessagingService::onTermination(grpc::ServerCall& call, const v2::NotifyClientTerminationRequest&,
                                                      v2::NotifyClientTerminationResponse& resp) {
  terminate(registry_, std::string(call.metadata("x-mq-client-id")), resp);
  co_return;
}

asio::awaitable<void> MessagingService::onAssignment(grpc::ServerCall&, const v2::QueryAssignmentRequest& req,
                                                     v2::QueryAssignmentResponse& resp) {
  co_await assignment_.queryAssignment(req, resp);
}

asio::awaitable<void> MessagingService::onAck(grpc::ServerCall&, const v2::AckMessageRequest& req,
                                              v2::AckMessageResponse& resp) {
  co_await ack_.ack(req, resp);
}

asio::awaitable<void> MessagingService::onChangeInvisible(grpc::ServerCall&, const v2::ChangeInvisibleDurationRequest& req,
                                                          v2::ChangeInvisibleDurationResponse& resp) {
  co_await ack_.changeInvisible(req, resp);
}

asio::awaitable<void> MessagingService::onDeadLetter(grpc::ServerCall&,
                                                     const v2::ForwardMessageToDeadLetterQueueRequest& req,
                                                     v2::ForwardMessageToDeadLetterQueueResponse& resp) {
  co_await ack_.toDeadLetter(req, resp);
}

asio::awaitable<void> MessagingService::onRecall(grpc::ServerCall& call, const v2::RecallMessageRequest& req,
                                                 v2::RecallMessageResponse& resp) {
  co_await send_.recall(req, call.peerAddress(), resp);
}

void MessagingService::registerTo(const Register& handle) {
  auto path = [](std::string_view rpc) { return std::string(kServicePath) + std::string(rpc); };
  handle(path("QueryRoute"), [this](grpc::ServerCallPtr c) {
    return unary<v2::QueryRouteRequest, v2::QueryRouteResponse, &MessagingService::onQueryRoute>(std::move(c));
  });
  handle(path("Heartbeat"), [this](grpc::ServerCallPtr c) {
    return unary<v2::HeartbeatRequest, v2::HeartbeatResponse, &MessagingService::onHeartbeat>(std::move(c));
  });
  handle(path("SendMessage"), [this](grpc::ServerCallPtr c) {
    return unary<v2::SendMessageRequest, v2::SendMessageResponse, &MessagingService::onSend>(std::move(c));
  });
  handle(path("EndTransaction"), [this](grpc::ServerCallPtr c) {
    return unary<v2::EndTransactionRequest, v2::EndTransactionResponse, &MessagingService::onEnd>(std::move(c));
  });
  handle(path("NotifyClientTermination"), [this](grpc::ServerCallPtr c) {
    return unary<v2::NotifyClientTerminationRequest, v2::NotifyClientTerminationResponse,
                 &MessagingService::onTermination>(std::move(c));
  });
  handle(path("RecallMessage"), [this](grpc::ServerCallPtr c) {
    return unary<v2::RecallMessageRequest, v2::RecallMessageResponse, &MessagingService::onRecall>(std::move(c));
  });
  handle(path("QueryAssignment"), [this](grpc::ServerCallPtr c) {
    return unary<v2::QueryAssignmentRequest, v2::QueryAssignmentResponse, &MessagingService::onAssignment>(std::move(c));
  });
  handle(path("ReceiveMessage"), [this](grpc::ServerCallPtr c) { return receive(std::move(c)); });
  handle(path("AckMessage"), [this](grpc::ServerCallPtr c) {
    return unary<v2::AckMessageRequest, v2::AckMessageResponse, &MessagingService::onAck>(std::move(c));
  });
  handle(path("ChangeInvisibleDuration"), [this](grpc::ServerCallPtr c) {
    return unary<v2::ChangeInvisibleDurationRequest, v2::ChangeInvisibleDurationResponse,
                 &MessagingService::onChangeInvisible>(std::move(c));
  });
  handle(path("ForwardMessageToDeadLetterQueue"), [this](grpc::ServerCallPtr c) {
    return unary<v2::ForwardMessageToDeadLetterQueueRequest, v2::ForwardMessageToDeadLetterQueueResponse,
                 &MessagingService::onDeadLetter>(std::move(c));
  });
  handle(path("Telemetry"), [this](grpc::ServerCallPtr c) { return telemetry(std::move(c)); });
  for (auto rpc : kNotYet) handle(path(rpc), [](grpc::ServerCallPtr c) { return unimplemented(std::move(c)); });
}

}  // namespace rmq::broker::messaging
