#include "roles/broker/messaging/broker_messaging.h"

#include "client/admin/admin_client.h"
#include "client/request_headers.h"
#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "grpc/grpc_tls.h"
#include "roles/broker/broker_context.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "roles/broker/processors/admin_support.h"
#include "roles/broker/registration/namesrv_registrar.h"
#include "roles/connection_options.h"
#include "store/store_config.h"

namespace rmq::broker::messaging {

namespace {

constexpr auto kCallTimeout = std::chrono::milliseconds(3000);
constexpr auto kPortTtl = std::chrono::seconds(30);
constexpr auto kNoPortTtl = std::chrono::seconds(5);

std::string_view rpcOf(std::string_view path) {
  return path.starts_with(kServicePath) ? path.substr(kServicePath.size()) : path;
}

constexpr std::string_view kRpcs[] = {
    "QueryRoute", "Heartbeat", "SendMessage", "QueryAssignment", "ReceiveMessage", "AckMessage",
    "ForwardMessageToDeadLetterQueue", "PullMessage", "UpdateOffset", "GetOffset", "QueryOffset", "EndTransaction",
    "Telemetry", "NotifyClientTermination", "ChangeInvisibleDuration", "RecallMessage", "SyncLiteSubscription"};

// The put path with the header owned by this frame; the body stays in the request message, which
// outlives the call (MessagingDeps::put).
asio::awaitable<SendProcessor::PutOutcome> putOwned(SendProcessor& send, SendHeader h, std::string_view body,
                                                    HostAddress born) {
  const auto start = std::chrono::steady_clock::now();  // gRPC: the send's budget counts from here
  auto out = co_await send.put(h, body, born, start, start);
  co_return out;
}

template <class T>
asio::awaitable<Result<T>> notServing() {
  co_return Error{ResponseCode::SERVICE_NOT_AVAILABLE, "POP is not running on this broker"};
}

// ctx.pop is read per call: the PopService is made after the messaging service.
PopDeps popDeps(BrokerContext& ctx) {
  PopDeps p;
  p.pop = [&ctx](pop::PopRequest r) { return ctx.pop ? ctx.pop->pop(std::move(r)) : notServing<pop::PopResult>(); };
  p.ack = [&ctx](std::string g, std::string t, std::string h) {
    return ctx.pop ? ctx.pop->ack(std::move(g), std::move(t), std::move(h)) : notServing<void>();
  };
  p.changeInvisible = [&ctx](std::string g, std::string t, std::string h, int64_t ms) {
    return ctx.pop ? ctx.pop->changeInvisible(std::move(g), std::move(t), std::move(h), ms)
                   : notServing<std::string>();
  };
  p.toDeadLetter = [&ctx](std::string g, std::string t, std::string h) {
    return ctx.pop ? ctx.pop->forwardToDeadLetter(std::move(g), std::move(t), std::move(h)) : notServing<void>();
  };
  return p;
}

}  // namespace

BrokerMessaging::BrokerMessaging(BrokerContext& ctx, SendProcessor& send, NamesrvRegistrar& registrar,
                                 net::TlsContextPtr clientTls, net::TlsServerSettings serverTls)
    : ctx_(ctx),
      send_(send),
      registrar_(registrar),
      serverTls_(std::move(serverTls)),
      client_(ctx.io, [&] {
        net::ClientOptions o;
        o.tls = std::move(clientTls);
        return o;
      }()) {
  for (auto rpc : kRpcs) counters_[std::string(rpc)];
  service_ = std::make_unique<MessagingService>(makeDeps(), ctx.acl);
}

BrokerMessaging::~BrokerMessaging() { stop(); }

MessagingDeps BrokerMessaging::makeDeps() {
  MessagingDeps d;
  d.clusterName = ctx_.config.brokerClusterName;
  d.brokerName = ctx_.config.brokerName;
  d.maxMessageSize = [&cfg = ctx_.storeConfig] { return cfg.maxMessageSize; };
  d.queryRoute = [this](std::string topic) { return queryRoute(std::move(topic)); };
  d.grpcPortOf = [this](std::string addr) { return grpcPortOf(std::move(addr)); };
  d.localTopic = [&topics = ctx_.topics](std::string_view topic) -> std::optional<LocalTopic> {
    auto t = topics.find(topic);
    if (!t) return std::nullopt;
    auto it = t->attributes.find("message.type");
    return LocalTopic{it == t->attributes.end() ? std::string() : it->second, t->writeQueueNums};
  };
  d.group = [&groups = ctx_.groups](std::string_view group) -> std::optional<GroupSettings> {
    auto g = groups.find(group);
    if (!g) return std::nullopt;
    return GroupSettings{g->consumeMessageOrderly, g->retryMaxTimes};
  };
  d.consumerJoined = [&ctx = ctx_](const std::string& group) {
    if (auto g = ctx.groups.findOrAutoCreate(group))
      admin::ensureSendBackTopic(ctx, topics::retryTopic(group), g->retryQueueNums, 0);
  };
  d.put = [&send = send_](SendHeader h, std::string_view body, HostAddress born) {
    return putOwned(send, std::move(h), body, born);
  };
  d.endTransaction = [&ctx = ctx_](const EndTransactionHeader& h) {
    if (!ctx.transactions) return TransactionalMessageService::EndResult{ResponseCode::SYSTEM_ERROR, "transactions not ready"};
    if (ctx.role.isSlave())
      return TransactionalMessageService::EndResult{ResponseCode::SLAVE_NOT_AVAILABLE,
                                                    "Can't process EndTransactionRequest on a slave broker"};
    return ctx.transactions->endTransaction(h);
  };
  d.clients = &ctx_.clients;
  d.pop = popDeps(ctx_);
  return d;
}

asio::awaitable<Result<client::TopicRouteData>> BrokerMessaging::queryRoute(std::string topic) {
  std::string lastError = "no name server configured";
  const auto servers = registrar_.namesrvList();  // a named local: it lives across the awaits below
  for (const auto& addr : servers) {
    auto request = client::makeRouteRequest(topic);
    auto r = co_await client_.invoke(addr, std::move(request), kCallTimeout);
    if (!r) {
      lastError = addr + ": " + r.error().message;
      continue;
    }
    if (r->code == ResponseCode::TOPIC_NOT_EXIST) co_return Error{ResponseCode::TOPIC_NOT_EXIST, r->remark.value_or("")};
    if (r->code != ResponseCode::SUCCESS) {
      lastError = addr + ": code " + std::to_string(r->code) + " " + r->remark.value_or("");
      continue;
    }
    auto route = client::parseTopicRouteData(r->body);
    if (!route) {
      lastError = addr + ": " + route.error().message;
      continue;
    }
    co_return std::move(*route);
  }
  co_return Error{ResponseCode::SYSTEM_ERROR, lastError};
}

asio::awaitable<int> BrokerMessaging::grpcPortOf(std::string addr) {
  if (addr == ctx_.config.brokerAddr()) co_return ctx_.config.grpcServerPort;
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(portsMu_);
    auto it = ports_.find(addr);
    if (it != ports_.end() && it->second.until > now) co_return it->second.port;
  }
  int port = 0;
  auto request = net::RemotingCommand::request(RequestCode::GET_BROKER_CONFIG);
  auto r = co_await client_.invoke(addr, std::move(request), kCallTimeout);
  if (r && r->code == ResponseCode::SUCCESS) {
    auto props = client::parsePropertiesText(r->body);
    auto it = props.find("grpcServerPort");
    if (it != props.end()) port = std::atoi(it->second.c_str());
  } else {
    log::warn("QueryRoute: GET_BROKER_CONFIG of {} failed: {}", addr, r ? r->remark.value_or("") : r.error().message);
  }
  std::lock_guard lock(portsMu_);
  ports_[addr] = CachedPort{port, now + (port > 0 ? kPortTtl : kNoPortTtl)};
  co_return port;
}

void BrokerMessaging::observe(std::string_view path, grpc::StatusCode code) {
  auto it = counters_.find(rpcOf(path));
  if (it == counters_.end()) return;  // unknown methods: the transport's own answer
  it->second.calls.fetch_add(1, std::memory_order_relaxed);
  if (code != grpc::StatusCode::OK) it->second.errors.fetch_add(1, std::memory_order_relaxed);
}

Result<void> BrokerMessaging::start() {
  grpc::GrpcServerOptions o;
  o.port = static_cast<uint16_t>(ctx_.config.grpcServerPort);
  o.connection = connectionOptions(ctx_.config.connection);
  o.maxInboundMessageSize = static_cast<size_t>(ctx_.config.grpcMaxInboundMessageSize);
  if (serverTls_.certPath.empty()) {
    log::warn("gRPC port {}: no tls.server.certPath, serving TLS with a self-signed certificate made now "
              "(5.x clients that verify certificates will refuse it; plaintext works on the same port)",
              o.port);
    serverTls_.testMode = true;
  }
  auto tls = grpc::makeGrpcServerTlsContext(serverTls_);
  if (!tls) return makeError(tls.error().code, "gRPC port TLS: " + tls.error().message);
  o.tls.mode = net::TlsMode::Permissive;
  o.tls.context = std::move(*tls);
  server_ = std::make_unique<grpc::GrpcServer>(ctx_.io, o);
  service_->registerTo([this](std::string path, grpc::CallHandler h) { server_->handle(std::move(path), std::move(h)); });
  server_->setObserver([this](std::string_view path, grpc::StatusCode code, std::chrono::nanoseconds) {
    observe(path, code);
  });
  if (auto r = server_->start(); !r) {
    server_.reset();
    return makeError(r.error().code, "gRPC port " + std::to_string(o.port) + ": " + r.error().message);
  }
  log::info("broker {}: RocketMQ 5.x gRPC MessagingService on port {} (TLS and plaintext)", ctx_.config.brokerName,
            server_->port());
  return {};
}

void BrokerMessaging::stop() {
  // Telemetry streams never end by themselves: a short drain (GOAWAY tells the clients to move).
  if (server_) server_->stop(std::chrono::milliseconds(1000));
}

uint16_t BrokerMessaging::port() const { return server_ ? server_->port() : 0; }

void BrokerMessaging::writeMetrics(metrics::TextWriter& w, const metrics::LabelList& base) const {
  w.family("rmqnode_grpc_requests_total", "RocketMQ 5.x gRPC calls finished, per RPC.", "counter");
  for (const auto& [rpc, c] : counters_) {
    metrics::LabelList l = base;
    l.emplace_back("rpc", rpc);
    w.sample("rmqnode_grpc_requests_total", l, static_cast<double>(c.calls.load(std::memory_order_relaxed)));
  }
  w.family("rmqnode_grpc_errors_total", "RocketMQ 5.x gRPC calls that ended with a non-OK gRPC status, per RPC.",
           "counter");
  for (const auto& [rpc, c] : counters_) {
    metrics::LabelList l = base;
    l.emplace_back("rpc", rpc);
    w.sample("rmqnode_grpc_errors_total", l, static_cast<double>(c.errors.load(std::memory_order_relaxed)));
  }
  w.family("rmqnode_grpc_connections", "Open gRPC (HTTP/2) connections.", "gauge");
  w.sample("rmqnode_grpc_connections", base, static_cast<double>(server_ ? server_->connectionCount() : 0));
  w.family("rmqnode_grpc_clients", "RocketMQ 5.x clients known by client id.", "gauge");
  w.sample("rmqnode_grpc_clients", base, static_cast<double>(service_->clients().size()));
}

}  // namespace rmq::broker::messaging
