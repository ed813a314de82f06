#include "roles/broker/messaging/grpc_clients.h"

#include <charconv>

#include "common/log.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/messaging/message_mapping.h"
#include "roles/broker/messaging/resource_namespace.h"

namespace rmq::broker::messaging {

namespace {

// Telemetry channels are numbered apart from remoting connection ids (which count up from 1).
constexpr uint64_t kChannelIdBase = uint64_t{1} << 63;

int64_t headerI64(const net::RemotingCommand& r, std::string_view key) { return r.extFields.getInt(key).value_or(0); }

}  // namespace

int32_t mqVersionOrdinal(std::string_view dotted) {
  int parts[3] = {0, 0, 0};
  const char* p = dotted.data();
  const char* end = p + dotted.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, ec] = std::from_chars(p, end, parts[i]);
    if (ec != std::errc()) return 0;
    p = next;
    if (i < 2) {
      if (p == end || *p != '.') return 0;
      ++p;
    }
  }
  if (parts[0] < 4 || parts[1] > 9 || parts[2] > 9) return 0;
  // MQVersion.Version: from V4_0_0_SNAPSHOT (212) two entries (SNAPSHOT, release) per x.y.z.
  return 212 + (parts[0] - 4) * 200 + parts[1] * 20 + parts[2] * 2 + 1;
}

TelemetryChannel::TelemetryChannel(uint64_t id, std::string clientId, grpc::ServerCallPtr call, TransactionTable& txs)
    : id_(id), clientId_(std::move(clientId)), call_(std::move(call)), txs_(txs) {}

void TelemetryChannel::close() {
  call_->finish({grpc::StatusCode::UNAVAILABLE, "client channel expired (no heartbeat)"});
}

asio::awaitable<Result<net::RemotingCommand>> TelemetryChannel::invoke(net::RemotingCommand request,
                                                                       std::chrono::milliseconds) {
  co_return Error{ResponseCode::REQUEST_CODE_NOT_SUPPORTED,
                  "request code " + std::to_string(request.code) + " has no RocketMQ 5.x form"};
}

void TelemetryChannel::sendOneway(net::RemotingCommand request) {
  if (request.code != RequestCode::CHECK_TRANSACTION_STATE) return;  // consumer-id pushes etc.: none in 5.x
  auto msg = decodeMessage(request.body);
  if (!msg) {
    log::warn("transaction check for 5.x client {}: undecodable message: {}", clientId_, msg.error().message);
    return;
  }
  std::string txId(request.extFields.get("transactionId"));
  const std::string* group = msg->property(prop::PGROUP);
  txs_.remember(txId, HalfMessageRef{group ? *group : "", headerI64(request, "commitLogOffset"),
                                     headerI64(request, "tranStateTableOffset")});
  v2::TelemetryCommand cmd;
  auto* recover = cmd.mutable_recover_orphaned_transaction_command();
  *recover->mutable_message() = toV2Message(*msg, v2::MessageType::TRANSACTION);
  recover->set_transaction_id(txId);
  unwrapResources(cmd, call_->metadata(kNamespaceHeader));
  if (call_->write(cmd.SerializeAsString())) sent_.fetch_add(1, std::memory_order_relaxed);
}

void GrpcClientRegistry::registerLocked(const GrpcClient& c) {
  if (!clients_ || !c.channel) return;
  ClientChannel ch{c.channel, c.clientId, c.language, mqVersionOrdinal(c.version), std::chrono::steady_clock::now()};
  for (const auto& topic : c.topics) clients_->registerProducer(topic, ch);
}

void GrpcClientRegistry::unregisterLocked(const GrpcClient& c) {
  if (!clients_ || !c.channel) return;
  for (const auto& topic : c.topics) clients_->unregisterProducer(topic, c.channel->id());
}

void GrpcClientRegistry::onSettings(const std::string& clientId, const v2::Settings& settings,
                                    grpc::ServerCallPtr telemetry, std::string language, std::string version) {
  std::lock_guard lock(mu_);
  auto& c = byId_[clientId];
  unregisterLocked(c);  // topics or stream may have changed
  c.clientId = clientId;
  c.language = std::move(language);
  c.version = std::move(version);
  c.type = settings.client_type();
  c.topics.clear();
  if (settings.has_publishing())
    for (const auto& t : settings.publishing().topics()) c.topics.push_back(t.name());
  if (settings.has_subscription()) c.group = settings.subscription().group().name();
  if (!c.channel || c.channel->call() != telemetry)
    c.channel = std::make_shared<TelemetryChannel>(kChannelIdBase | ++nextChannelId_, clientId, std::move(telemetry), txs_);
  c.lastSeen = std::chrono::steady_clock::now();
  registerLocked(c);
}

void GrpcClientRegistry::touch(const std::string& clientId) {
  std::lock_guard lock(mu_);
  auto it = byId_.find(clientId);
  if (it == byId_.end()) return;
  it->second.lastSeen = std::chrono::steady_clock::now();
  registerLocked(it->second);  // refreshes lastUpdate of its producer channels
}

void GrpcClientRegistry::onTelemetryEnd(const std::string& clientId, const grpc::ServerCall* call) {
  std::lock_guard lock(mu_);
  auto it = byId_.find(clientId);
  if (it == byId_.end() || !it->second.channel || it->second.channel->call().get() != call) return;
  unregisterLocked(it->second);
  it->second.channel.reset();
}

void GrpcClientRegistry::remove(const std::string& clientId) {
  std::lock_guard lock(mu_);
  auto it = byId_.find(clientId);
  if (it == byId_.end()) return;
  unregisterLocked(it->second);
  byId_.erase(it);
}

std::optional<GrpcClient> GrpcClientRegistry::find(const std::string& clientId) const {
  std::lock_guard lock(mu_);
  auto it = byId_.find(clientId);
  if (it == byId_.end()) return std::nullopt;
  return it->second;
}

size_t GrpcClientRegistry::size() const {
  std::lock_guard lock(mu_);
  return byId_.size();
}

}  // namespace rmq::broker::messaging
