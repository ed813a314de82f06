#include "roles/broker/messaging/grpc_clients.h"

#include <algorithm>
#include <charconv>

#include "client/consumer/consume_directly.h"
#include "client/consumer/running_info.h"
#include "common/log.h"
#include "common/message_codec.h"
#include "common/wall_clock.h"
#include "filter/tag_expression.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/processors/admin_support.h"
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

void TelemetryChannel::setConsumer(ConsumerFacts facts) {
  std::lock_guard lock(mu_);
  consumer_ = std::move(facts);
}

asio::awaitable<Result<net::RemotingCommand>> TelemetryChannel::invoke(net::RemotingCommand request,
                                                                       std::chrono::milliseconds timeout) {
  if (request.code == RequestCode::GET_CONSUMER_RUNNING_INFO) {
    auto info = co_await runningInfo(request, timeout);
    co_return info;
  }
  if (request.code == RequestCode::CONSUME_MESSAGE_DIRECTLY) {
    auto verified = co_await verifyMessage(request, timeout);
    co_return verified;
  }
  co_return Error{ResponseCode::REQUEST_CODE_NOT_SUPPORTED,
                  "request code " + std::to_string(request.code) + " has no RocketMQ 5.x form"};
}

asio::awaitable<std::optional<v2::TelemetryCommand>> TelemetryChannel::ask(v2::TelemetryCommand cmd, std::string nonce,
                                                                          std::chrono::milliseconds timeout) {
  auto answer = std::make_shared<Answer>();
  {
    std::lock_guard lock(mu_);
    waiting_[nonce] = answer;
  }
  bool got = false;
  if (call_->write(cmd.SerializeAsString())) {
    sent_.fetch_add(1, std::memory_order_relaxed);
    got = co_await answer->wait(timeout);
  }
  {
    std::lock_guard lock(mu_);
    waiting_.erase(nonce);
  }
  if (!got) co_return std::nullopt;
  co_return answer->take();
}

bool TelemetryChannel::onAnswer(const v2::TelemetryCommand& answer) {
  const std::string& nonce = answer.has_thread_stack_trace()    ? answer.thread_stack_trace().nonce()
                             : answer.has_verify_message_command() ? answer.verify_message_command().nonce()
                                                                   : answer.verify_message_result().nonce();
  std::shared_ptr<Answer> waiter;
  {
    std::lock_guard lock(mu_);
    auto it = waiting_.find(nonce);
    if (it == waiting_.end()) return false;
    waiter = it->second;
  }
  return waiter->set(answer);
}

std::string TelemetryChannel::newNonce() {
  std::lock_guard lock(mu_);
  return clientId_ + "#" + std::to_string(++nextNonce_);
}

asio::awaitable<Result<net::RemotingCommand>> TelemetryChannel::runningInfo(const net::RemotingCommand& request,
                                                                            std::chrono::milliseconds timeout) {
  ConsumerFacts facts;
  {
    std::lock_guard lock(mu_);
    facts = consumer_;
  }
  client::RunningInfoParts parts;
  parts.properties.emplace_back("PROP_CONSUME_TYPE", facts.push ? "CONSUME_PASSIVELY" : "CONSUME_ACTIVELY");
  // MQVersion's name ("5.0.8" -> "V5_0_8"); a version that is none (the Node client sends its
  // package's, "1.0.8") as it is.
  std::string version = facts.version;
  if (mqVersionOrdinal(version) > 0) {
    version = "V" + version;
    std::replace(version.begin(), version.end(), '.', '_');
  }
  parts.properties.emplace_back("PROP_CLIENT_VERSION", version);
  for (const auto& sub : facts.subscriptions) {
    json::Writer w;
    admin::writeSubscription(w, sub);
    parts.subscriptionJsons.push_back(w.take());
  }
  if (request.extFields.getBool("jstackEnable").value_or(false)) {
    std::string nonce = newNonce();
    v2::TelemetryCommand cmd;
    cmd.mutable_print_thread_stack_trace_command()->set_nonce(nonce);
    auto answer = co_await ask(std::move(cmd), std::move(nonce), timeout);
    if (!answer || !answer->has_thread_stack_trace())
      co_return Error{ResponseCode::SYSTEM_ERROR, "5.x client " + clientId_ + " sent no thread stack trace in time"};
    if (answer->status().code() != v2::Code::OK)
      co_return net::RemotingCommand::response(ResponseCode::SYSTEM_ERROR,
                                                "thread stack trace failed: " + answer->status().message());
    parts.jstack = answer->thread_stack_trace().thread_stack_trace();
  }
  auto response = net::RemotingCommand::response(ResponseCode::SUCCESS);
  response.body = client::encodeRunningInfo(parts);
  co_return response;
}

asio::awaitable<Result<net::RemotingCommand>> TelemetryChannel::verifyMessage(const net::RemotingCommand& request,
                                                                              std::chrono::milliseconds timeout) {
  auto msg = decodeMessage(request.body);
  if (!msg) co_return msg.error();
  std::string nonce = newNonce();
  v2::TelemetryCommand cmd;
  auto* verify = cmd.mutable_verify_message_command();
  verify->set_nonce(nonce);
  *verify->mutable_message() = toV2Message(*msg, typeOf(*msg));
  unwrapResources(cmd, call_->metadata(kNamespaceHeader));
  const int64_t start = nowMillis();
  auto answer = co_await ask(std::move(cmd), std::move(nonce), timeout);
  if (!answer)
    co_return Error{ResponseCode::SYSTEM_ERROR, "5.x client " + clientId_ + " sent no verify result in time"};
  client::ConsumeDirectlyResult result;  // Java's ClientActivity.buildConsumeMessageDirectlyResult
  switch (answer->status().code()) {
    case v2::Code::OK: result.consumeResult = client::DirectConsumeResult::CR_SUCCESS; break;
    case v2::Code::FAILED_TO_CONSUME_MESSAGE: result.consumeResult = client::DirectConsumeResult::CR_LATER; break;
    case v2::Code::MESSAGE_CORRUPTED: result.consumeResult = client::DirectConsumeResult::CR_RETURN_NULL; break;
    default: result.consumeResult = client::DirectConsumeResult::CR_THROW_EXCEPTION; break;
  }
  result.remark = "from gRPC client";
  result.spentTimeMills = nowMillis() - start;
  auto response = net::RemotingCommand::response(ResponseCode::SUCCESS);
  response.body = client::encodeConsumeDirectlyResult(result);
  co_return response;
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

namespace {

bool isConsumer(v2::ClientType t) {
  return t == v2::ClientType::PUSH_CONSUMER || t == v2::ClientType::SIMPLE_CONSUMER;
}

// A 5.x subscription entry as the SubscriptionData a 4.x heartbeat would carry.
SubscriptionData subscriptionOf(const v2::SubscriptionEntry& e) {
  SubscriptionData s;
  s.topic = e.topic().name();
  s.subVersion = nowMillis();
  if (e.expression().type() == v2::FilterType::SQL) {
    s.expressionType = "SQL92";
    s.subString = e.expression().expression();
    return s;
  }
  auto tags = filter::parseTagExpression(e.expression().expression());
  s.subString = tags.subString;
  s.tagsSet = std::move(tags.tags);
  s.codeSet = std::move(tags.codes);
  return s;
}

}  // namespace

void GrpcClientRegistry::registerLocked(const GrpcClient& c) {
  if (!clients_ || !c.channel) return;
  ClientChannel ch{c.channel, c.clientId, c.language, mqVersionOrdinal(c.version), std::chrono::steady_clock::now()};
  for (const auto& topic : c.topics) clients_->registerProducer(topic, ch);
  if (isConsumer(c.type) && !c.group.empty()) {
    // As the proxy registers them: clustering, push = CONSUME_PASSIVELY, simple = CONSUME_ACTIVELY.
    const bool push = c.type == v2::ClientType::PUSH_CONSUMER;
    ConsumerRegistration reg{c.group, push ? "CONSUME_PASSIVELY" : "CONSUME_ACTIVELY", "CLUSTERING",
                             "CONSUME_FROM_LAST_OFFSET", c.subscriptions};
    clients_->registerConsumer(reg, ch);
  }
}

void GrpcClientRegistry::unregisterLocked(const GrpcClient& c) {
  if (!clients_ || !c.channel) return;
  for (const auto& topic : c.topics) clients_->unregisterProducer(topic, c.channel->id());
  if (isConsumer(c.type) && !c.group.empty()) clients_->unregisterConsumer(c.group, c.channel->id());
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
  c.subscriptions.clear();
  if (settings.has_subscription()) {
    c.group = settings.subscription().group().name();
    for (const auto& e : settings.subscription().subscriptions()) c.subscriptions.push_back(subscriptionOf(e));
  }
  if (!c.channel || c.channel->call() != telemetry)
    c.channel = std::make_shared<TelemetryChannel>(kChannelIdBase | ++nextChannelId_, clientId, std::move(telemetry), txs_);
  if (isConsumer(c.type))
    c.channel->setConsumer({c.type == v2::ClientType::PUSH_CONSUMER, c.version, c.subscriptions});
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

bool GrpcClientRegistry::onAnswer(const std::string& clientId, const v2::TelemetryCommand& answer) {
  std::shared_ptr<TelemetryChannel> channel;
  {
    std::lock_guard lock(mu_);
    auto it = byId_.find(clientId);
    if (it == byId_.end() || !it->second.channel) return false;
    channel = it->second.channel;
  }
  return channel->onAnswer(answer);
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
