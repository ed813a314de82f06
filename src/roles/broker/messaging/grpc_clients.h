#pragma once
// The 5.x clients this broker knows, by x-mq-client-id (language and version from their request
// metadata / Settings). A producer is also listed in the broker's ClientManager under group =
// each topic of its Settings (as the 5.x proxy registers them), through a TelemetryChannel: a
// net::Connection whose "sends" become commands on the client's Telemetry stream. So admin views
// and the console list 5.x producers next to 4.x ones, and the transaction checker's
// CHECK_TRANSACTION_STATE to `anyProducerChannel(group)` reaches a 5.x producer as a
// RecoverOrphanedTransactionCommand without knowing about gRPC.
// Thread-safety: one mutex; any thread.
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "apache/rocketmq/v2/service.pb.h"
#include "grpc/server_call.h"
#include "net/async_result.h"
#include "net/connection.h"
#include "roles/broker/clients/heartbeat_data.h"
#include "roles/broker/messaging/transaction_table.h"
#include "roles/broker/messaging/v2_status.h"

namespace rmq::broker {
class ClientManager;
}

namespace rmq::broker::messaging {

// MQVersion ordinal of "5.0.8" (what 4.x admin views print as V5_0_8); 0 when it does not parse.
int32_t mqVersionOrdinal(std::string_view dottedVersion);

// What a consumer's running info tells about it (GET_CONSUMER_RUNNING_INFO answers).
struct ConsumerFacts {
  bool push = true;             // PushConsumer (CONSUME_PASSIVELY), else SimpleConsumer (ACTIVELY)
  std::string version;          // "5.0.8"
  std::vector<SubscriptionData> subscriptions;
};

// One client's Telemetry stream as a remoting "connection" (see the file comment). Requests the
// broker invokes on it become server-to-client commands, as the 5.x proxy's GrpcClientChannel
// makes them; the client's answer (matched by nonce) is the remoting answer:
//   GET_CONSUMER_RUNNING_INFO with jstackEnable -> PrintThreadStackTraceCommand; the ThreadStackTrace
//     comes back as a ConsumerRunningInfo with it as jstack (without jstackEnable: answered at once,
//     no command: the broker's metrics rounds ask every consumer each period);
//   CONSUME_MESSAGE_DIRECTLY -> VerifyMessageCommand with the message; VerifyMessageResult's
//     status -> ConsumeMessageDirectlyResult (OK CR_SUCCESS, FAILED_TO_CONSUME_MESSAGE CR_LATER,
//     MESSAGE_CORRUPTED CR_RETURN_NULL, else CR_THROW_EXCEPTION), remark "from gRPC client". The
//     Node client 1.0.8 answers with a VerifyMessageCommand of the same nonce and NOT_IMPLEMENTED:
//     taken as the answer too (CR_THROW_EXCEPTION).
class TelemetryChannel : public net::Connection {
 public:
  TelemetryChannel(uint64_t id, std::string clientId, grpc::ServerCallPtr call, TransactionTable& txs);
  void setConsumer(ConsumerFacts facts);
  // A ThreadStackTrace / VerifyMessageResult from the client; false when no invoke waits for its nonce.
  bool onAnswer(const v2::TelemetryCommand& answer);
  uint64_t id() const override { return id_; }
  const std::string& remoteAddress() const override { return call_->peerAddress(); }
  const std::string& localAddress() const override { return call_->localAddress(); }
  bool isOpen() const override { return !call_->done(); }
  // Expiry (no heartbeat for the channel timeout): the stream ends; the client opens a new one.
  void close() override;
  asio::awaitable<Result<net::RemotingCommand>> invoke(net::RemotingCommand request,
                                                       std::chrono::milliseconds timeout) override;
  // CHECK_TRANSACTION_STATE -> RecoverOrphanedTransactionCommand; other pushes have no 5.x form.
  void sendOneway(net::RemotingCommand request) override;
  void sendResponse(const net::RemotingCommand&, net::RemotingCommand) override {}

  const grpc::ServerCallPtr& call() const { return call_; }
  uint64_t commandsSent() const { return sent_.load(std::memory_order_relaxed); }

 private:
  using Answer = net::AsyncResult<v2::TelemetryCommand>;
  std::string newNonce();
  // Writes `cmd` (carrying `nonce`) and waits for the client's answer with that nonce.
  asio::awaitable<std::optional<v2::TelemetryCommand>> ask(v2::TelemetryCommand cmd, std::string nonce,
                                                          std::chrono::milliseconds timeout);
  asio::awaitable<Result<net::RemotingCommand>> runningInfo(const net::RemotingCommand& request,
                                                            std::chrono::milliseconds timeout);
  asio::awaitable<Result<net::RemotingCommand>> verifyMessage(const net::RemotingCommand& request,
                                                              std::chrono::milliseconds timeout);

  uint64_t id_;
  std::string clientId_;
  grpc::ServerCallPtr call_;
  TransactionTable& txs_;
  std::atomic<uint64_t> sent_{0};
  std::mutex mu_;
  ConsumerFacts consumer_;
  uint64_t nextNonce_ = 0;
  std::map<std::string, std::shared_ptr<Answer>> waiting_;  // nonce -> the invoke waiting for it
};

struct GrpcClient {
  std::string clientId;
  std::string language;  // "NODE_JS", "JAVA", ... (Settings.user_agent, else x-mq-language)
  std::string version;   // "5.0.8"
  v2::ClientType type = v2::ClientType::CLIENT_TYPE_UNSPECIFIED;
  std::vector<std::string> topics;  // a producer's topics (its producer groups)
  std::string group;                // a consumer's group
  std::vector<SubscriptionData> subscriptions;  // a consumer's
  std::shared_ptr<TelemetryChannel> channel;  // null until a Telemetry stream sent Settings
  std::chrono::steady_clock::time_point lastSeen;
};

class GrpcClientRegistry {
 public:
  GrpcClientRegistry(ClientManager* clients, TransactionTable& txs) : clients_(clients), txs_(txs) {}

  // Settings arrived on `telemetry`: (re)registers the client; a producer's topics become its
  // producer groups in the ClientManager, a consumer is a member of its group there (consumer
  // connection lists, GET_CONSUMER_RUNNING_INFO, CONSUME_MESSAGE_DIRECTLY reach it).
  void onSettings(const std::string& clientId, const v2::Settings& settings, grpc::ServerCallPtr telemetry,
                  std::string language, std::string version);
  // Heartbeat / any request: refreshes the channels' lastUpdate (the ClientManager's expiry).
  void touch(const std::string& clientId);
  // The stream `call` ended: the client's channel goes (a newer stream of the client stays).
  void onTelemetryEnd(const std::string& clientId, const grpc::ServerCall* call);
  // NotifyClientTermination: the client and its channels go.
  void remove(const std::string& clientId);
  // A ThreadStackTrace / VerifyMessageResult on the client's Telemetry; false: nobody asked for it.
  bool onAnswer(const std::string& clientId, const v2::TelemetryCommand& answer);

  std::optional<GrpcClient> find(const std::string& clientId) const;
  size_t size() const;

 private:
  void unregisterLocked(const GrpcClient& c);
  void registerLocked(const GrpcClient& c);

  ClientManager* clients_;
  TransactionTable& txs_;
  mutable std::mutex mu_;
  std::map<std::string, GrpcClient> byId_;
  uint64_t nextChannelId_ = 0;
};

}  // namespace rmq::broker::messaging
