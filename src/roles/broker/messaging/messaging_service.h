#pragma once
// MessagingService: apache.rocketmq.v2.MessagingService (RocketMQ 5.x clients) on this broker, as
// handlers for a grpc::GrpcServer ("local proxy mode": no separate proxy process). Served:
// QueryRoute, Heartbeat, SendMessage, EndTransaction, Telemetry, NotifyClientTermination,
// RecallMessage, and the consumers' RPCs on the broker's POP engine: QueryAssignment,
// ReceiveMessage (server stream), AckMessage, ChangeInvisibleDuration,
// ForwardMessageToDeadLetterQueue. Every other RPC of the service answers gRPC UNIMPLEMENTED (PullMessage and the offset RPCs: 5.x lite consumers).
// Every request must carry `x-mq-client-id` (else status CLIENT_ID_REQUIRED) and, with the ACL
// on, a valid `authorization` (grpc_acl.h).
// Threads: handlers run on the connection's io thread; the parts are thread-safe.
#include <functional>
#include <memory>
#include <string>

#include "grpc/server_call.h"
#include "roles/broker/messaging/ack_service.h"
#include "roles/broker/messaging/assignment_service.h"
#include "roles/broker/messaging/grpc_acl.h"
#include "roles/broker/messaging/grpc_clients.h"
#include "roles/broker/messaging/messaging_deps.h"
#include "roles/broker/messaging/receipt_renewer.h"
#include "roles/broker/messaging/receive_service.h"
#include "roles/broker/messaging/route_service.h"
#include "roles/broker/messaging/send_service.h"
#include "roles/broker/messaging/telemetry_service.h"
#include "roles/broker/messaging/transaction_service.h"
#include "roles/broker/messaging/transaction_table.h"

namespace rmq::broker::messaging {

inline constexpr std::string_view kServicePath = "/apache.rocketmq.v2.MessagingService/";

class MessagingService {
 public:
  // `acl`: null = no ACL (aclEnable off).
  explicit MessagingService(MessagingDeps deps, const acl::AclManager* acl = nullptr);

  // Registers every RPC of the service: handle(path, handler) (GrpcServer::handle, or a test's map).
  using Register = std::function<void(std::string path, grpc::CallHandler handler)>;
  void registerTo(const Register& handle);

  GrpcClientRegistry& clients() { return registry_; }
  TransactionTable& transactions() { return txs_; }
  ReceiptRenewer& renewer() { return renewer_; }

 private:
  template <class Req, class Resp, auto Method>
  asio::awaitable<void> unary(grpc::ServerCallPtr call);
  asio::awaitable<void> telemetry(grpc::ServerCallPtr call);
  asio::awaitable<void> receive(grpc::ServerCallPtr call);
  // The request's client id and ACL verdict; false when the call was answered here.
  template <class Req, class Resp>
  bool admitted(grpc::ServerCall& call, const Req& req, Resp& resp);

  asio::awaitable<void> onQueryRoute(grpc::ServerCall& call, const v2::QueryRouteRequest& req, v2::QueryRouteResponse& resp);
  asio::awaitable<void> onHeartbeat(grpc::ServerCall& call, const v2::HeartbeatRequest& req, v2::HeartbeatResponse& resp);
  asio::awaitable<void> onSend(grpc::ServerCall& call, const v2::SendMessageRequest& req, v2::SendMessageResponse& resp);
  asio::awaitable<void> onEnd(grpc::ServerCall& call, const v2::EndTransactionRequest& req, v2::EndTransactionResponse& resp);
  asio::awaitable<void> onTermination(grpc::ServerCall& call, const v2::NotifyClientTerminationRequest& req,
                                      v2::NotifyClientTerminationResponse& resp);
  asio::awaitable<void> onAssignment(grpc::ServerCall& call, const v2::QueryAssignmentRequest& req,
                                     v2::QueryAssignmentResponse& resp);
  asio::awaitable<void> onAck(grpc::ServerCall& call, const v2::AckMessageRequest& req, v2::AckMessageResponse& resp);
  asio::awaitable<void> onChangeInvisible(grpc::ServerCall& call, const v2::ChangeInvisibleDurationRequest& req,
                                          v2::ChangeInvisibleDurationResponse& resp);
  asio::awaitable<void> onDeadLetter(grpc::ServerCall& call, const v2::ForwardMessageToDeadLetterQueueRequest& req,
                                     v2::ForwardMessageToDeadLetterQueueResponse& resp);
  asio::awaitable<void> onRecall(grpc::ServerCall& call, const v2::RecallMessageRequest& req, v2::RecallMessageResponse& resp);

  MessagingDeps deps_;
  GrpcAcl acl_;
  TransactionTable txs_;
  GrpcClientRegistry registry_;
  RouteService route_;
  TelemetryService telemetry_;
  SendService send_;
  TransactionService transaction_;
  ReceiptRenewer renewer_;
  AssignmentService assignment_;
  ReceiveService receive_;
  AckService ack_;
};

}  // namespace rmq::broker::messaging
