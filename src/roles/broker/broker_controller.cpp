#include "roles/broker/broker_controller.h"

#include "roles/broker/failover/failover_coordinator.h"
#include "roles/broker/failover/failover_processor.h"
#include "store/epoch_file.h"

#include <algorithm>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>

#include "acl/acl_manager.h"
#include "common/log.h"
#include "common/response_code.h"
#include "net/dispatcher.h"
#include "net/remoting_server.h"
#include "roles/broker/broker_context.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/processors/client_processor.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/delivery/delay_levels.h"
#include "net/top_addressing.h"
#include "roles/broker/registration/namesrv_address_fetcher.h"
#include "roles/broker/registration/namesrv_registrar.h"
#include "roles/broker/processors/offset_processor.h"
#include "roles/broker/processors/pull_processor.h"
#include "roles/broker/delivery/pull_request_hold.h"
#include "roles/broker/delivery/schedule_message_service.h"
#include "roles/broker/delivery/timer_message_service.h"
#include "roles/broker/processors/end_transaction_processor.h"
#include "roles/broker/processors/fast_failure.h"
#include "roles/broker/messaging/broker_messaging.h"
#include "roles/broker/transaction/transactional_message_service.h"
#include "roles/broker/processors/reply_processor.h"
#include "roles/broker/processors/send_processor.h"
#include "roles/broker/replication/broker_replication.h"
#include "roles/broker/stats/client_runtime_stats.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "roles/broker/pop/pop_processor.h"
#include "roles/broker/pop/pop_service.h"
#include "roles/broker/stats/broker_metrics.h"
#include "roles/broker/stats/request_latency.h"
#include "store/message_store.h"
#include "roles/connection_options.h"

namespace rmq::broker {

BrokerController::BrokerController(net::IoPool& io, BrokerConfig config, store::StoreConfig storeConfig,
                                   std::shared_ptr<config::ConfigFilePersister> configFile)
    : io_(io), config_(std::move(config)), storeConfig_(std::move(storeConfig)), configFile_(std::move(configFile)) {}

BrokerController::~BrokerController() { shutdown(); }

uint16_t BrokerController::port() const { return server_ ? server_->port() : 0; }
uint16_t BrokerController::grpcPort() const { return messaging_ ? messaging_->port() : 0; }

Result<void> BrokerController::openStoreAndManagers() {
  HostAddress storeHost;
  if (!HostAddress::parse(config_.brokerAddr(), storeHost))
    return makeError(1, "brokerIP1 '" + config_.brokerIP1 + "' is not an IP address");
  store_ = std::make_unique<store::MessageStore>(storeConfig_, storeHost);
  if (auto r = store_->open(); !r) return makeError(r.error().code, "store: " + r.error().message);
  if (config_.failover.failoverEnable) {
    // Until the coordinator knows the group, this broker takes no writes and acks by the in-sync set.
    store_->setRole("SLAVE");
    store_->setInSyncSetAcks(true);
    epochs_ = std::make_unique<store::EpochFile>(storeConfig_.rootDir() + "/epochFile");
    if (auto r = epochs_->load(); !r) return makeError(r.error().code, "epoch file: " + r.error().message);
  }

  std::string configDir = storeConfig_.configDir();
  topics_ = std::make_unique<TopicConfigManager>(TopicConfigManagerOptions::from(config_, configDir));
  groups_ = std::make_unique<SubscriptionGroupManager>(configDir, config_.autoCreateSubscriptionGroup);
  offsets_ = std::make_unique<ConsumerOffsetManager>(configDir);
  if (auto r = topics_->load(); !r) return makeError(r.error().code, "topics: " + r.error().message);
  // A slave's topics come from its master (SlaveSynchronize).
  if (storeConfig_.brokerRole != "SLAVE") topics_->recreateFromQueues(store_->queues());
  if (auto r = groups_->load(); !r) return makeError(r.error().code, "subscription groups: " + r.error().message);
  if (auto r = offsets_->load(); !r) return makeError(r.error().code, "consumer offsets: " + r.error().message);

  auto levels = DelayLevels::parse(storeConfig_.messageDelayLevel);
  if (!levels) return makeError(levels.error().code, "messageDelayLevel: " + levels.error().message);
  schedule_ = std::make_unique<ScheduleMessageService>(*store_, *levels, configDir, storeConfig_.flushDelayOffsetInterval);
  if (auto r = schedule_->load(); !r) return makeError(r.error().code, "delay offsets: " + r.error().message);
  timer_ = std::make_unique<TimerMessageService>(*store_, store_->config());
  return {};
}

Result<void> BrokerController::startServers() {
  net::ServerOptions opts;
  opts.port = static_cast<uint16_t>(config_.listenPort);
  opts.connection = connectionOptions(config_.connection);
  opts.tls = serverTls_;  // the VIP port too, as Java's fast remoting server
  server_ = std::make_unique<net::RemotingServer>(io_, opts, dispatcher_);
  auto onClosed = [clients = clients_.get()](const net::ConnectionPtr& c) {
    cancelConnectionParks(*c);  // its parked pulls end now, not when their hold would (nobody to answer)
    clients->onConnectionClosed(c->id());
  };
  server_->onConnectionClosed(onClosed);
  // VIP channel (listenPort-2): same processors; Java slaves and some admin tools use it.
  net::ServerOptions vip = opts;
  vip.port = static_cast<uint16_t>(config_.listenPort - 2);
  vipServer_ = std::make_unique<net::RemotingServer>(io_, vip, dispatcher_);
  vipServer_->onConnectionClosed(onClosed);
  // A connection at connectionMaxInFlightRequests reads on into a bounded hold, where a request
  // past its budget gets the busy answer (fast_failure.h heldTooLong) instead of waiting unseen in
  // its socket until the client times out.
  auto heldAnswer = [cfg = &config_](const net::RemotingCommand& req, std::chrono::steady_clock::time_point now,
                                     int64_t held, bool holdFull) { return heldTooLong(*cfg, req, now, held, holdFull); };
  server_->setHeldAnswer(heldAnswer);
  vipServer_->setHeldAnswer(heldAnswer);
  // UPDATE_BROKER_CONFIG of a connection key: both ports' connections, open and future. Set before
  // any request can run; both servers live until the controller is destroyed.
  ctx_->applyConnectionLimits = [main = server_.get(), vipPort = vipServer_.get(), &limits = config_.connection] {
    auto o = connectionOptions(limits);
    main->setConnectionOptions(o);
    vipPort->setConnectionOptions(o);
  };
  if (auto r = server_->start(); !r) return r;
  if (auto r = vipServer_->start(); !r)  // kept unstarted: no connections, stop() does nothing
    log::warn("broker: VIP port {} not served: {}", vip.port, r.error().message);
  if (config_.grpcServerPort > 0) {  // RocketMQ 5.x clients (messaging/)
    messaging_ = std::make_unique<messaging::BrokerMessaging>(*ctx_, *send_, *registrar_, clientTls_, grpcTls_);
    if (auto r = messaging_->start(); !r) {
      if (!grpcPortDefaulted_) return r;
      log::warn("{}; the dev node runs without gRPC (set grpcServerPort to choose a port, 0 = off)", r.error().message);
      messaging_.reset();
    }
  }
  return {};
}

namespace {

// Runs `work` every `period` until `stopping()` (parameters live in the coroutine frame).
asio::awaitable<void> periodic(std::chrono::milliseconds period, std::function<bool()> stopping,
                               std::function<void()> work) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  for (;;) {
    timer.expires_after(period);
    auto [ec] = co_await timer.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    if (ec || stopping()) co_return;
    work();
  }
}

// Java scans every 10 s for a 120 s timeout; shorter timeouts (tests) scan proportionally faster.
std::chrono::milliseconds expiryScanPeriod(int64_t timeoutMs) {
  return std::chrono::milliseconds(std::clamp<int64_t>(timeoutMs / 4, 250, 10000));
}

}  // namespace

// Periodic work on the background thread: consumer offset persistence and client expiry.
void BrokerController::startHousekeeping() {
  backgroundGuard_ = std::make_unique<asio::executor_work_guard<asio::io_context::executor_type>>(
      background_.get_executor());
  backgroundThread_ = std::thread([this] { background_.run(); });
  auto stopping = [ctx = ctx_.get()] { return ctx->isShuttingDown(); };
  asio::co_spawn(background_,
                 periodic(std::chrono::milliseconds(config_.flushConsumerOffsetInterval), stopping,
                          [offsets = offsets_.get()] {
                            if (auto r = offsets->persist(); !r)
                              log::warn("persist consumer offsets: {}", r.error().message);
                          }),
                 asio::detached);
  asio::co_spawn(background_,
                 periodic(expiryScanPeriod(config_.channelExpiredTimeout), stopping,
                          [clients = clients_.get(), timeout = config_.channelExpiredTimeout] {
                            clients->scanExpired(std::chrono::milliseconds(timeout));
                          }),
                 asio::detached);
  if (!storeConfig_.isSlave() && config_.clientRuntimeInfoInterval > 0)
    clientRuntime_ = ClientRuntimeStats::start(*ctx_, std::chrono::milliseconds(config_.clientRuntimeInfoInterval));
}

// aclEnable: load the ACL files and check every request before its processor (Java's
// BrokerController.initialAcl registers the validator as a server RPC hook).
Result<void> BrokerController::startAcl() {
  if (!config_.aclEnable) return {};
  if (config_.rocketmqHome.empty())
    return makeError(ResponseCode::SYSTEM_ERROR,
                     "aclEnable = true needs rocketmqHome (or $ROCKETMQ_HOME): the ACL is read from "
                     "<rocketmqHome>/conf/plain_acl.yml");
  acl_ = std::make_unique<acl::AclManager>(config_.rocketmqHome);
  if (auto r = acl_->start(); !r) return makeError(r.error().code, "ACL: " + r.error().message);
  ctx_->acl = acl_.get();
  dispatcher_->setGuard([acl = acl_.get()](const net::Connection& conn,
                                           const net::RemotingCommand& cmd) -> std::optional<net::RemotingCommand> {
    auto denied = acl->check(cmd, conn.remoteAddress());
    if (!denied) return std::nullopt;
    return net::RemotingCommand::response(ResponseCode::SYSTEM_ERROR, denied->remark());
  });
  return {};
}

Result<void> BrokerController::start() {
  if (started_) return {};
  config_.resolveDefaults();
  const bool failover = config_.failover.failoverEnable;
  // Masters are always id 0 (Java does the same). Under failover every broker keeps its own id
  // and registers as 0 only while the coordinator makes it master.
  if (!storeConfig_.isSlave() && !failover) config_.brokerId = 0;
  if (auto r = openStoreAndManagers(); !r) return r;

  clients_ = std::make_unique<ClientManager>(config_.notifyConsumerIdsChangedEnable);
  pullHold_ = std::make_unique<PullRequestHold>();
  dispatcher_ = std::make_shared<net::Dispatcher>();
  latency_ = std::make_shared<RequestLatency>();
  dispatcher_->setObserver([latency = latency_](int code, std::chrono::steady_clock::duration elapsed) {
    latency->observe(code, elapsed);
  });
  ctx_.reset(new BrokerContext{io_, config_, storeConfig_, *store_, *dispatcher_, *topics_, *groups_, *offsets_,
                               schedule_.get(), *clients_, *pullHold_, background_.get_executor(),
                               store_->storeHost(), {false}, {}, {}});
  ctx_->latency = latency_;
  ctx_->timer = timer_.get();
  ctx_->role.configure(!storeConfig_.isSlave() && !failover, config_.brokerId, failover);
  // A restarted failover broker resumes at the newest epoch its log holds, never below it.
  if (failover) ctx_->role.becomeSlave(epochs_->lastEpoch(), config_.brokerId);
  if (configFile_) ctx_->configFile = configFile_;
  store_->setArrivalListener([hold = pullHold_.get(), timer = timer_.get()](
                                 const std::string& topic, int queueId, int64_t queueOffset, int64_t tagsCode,
                                 int64_t, std::string_view props) {
    if (queueId == store::kTimerQueueId && topic == store::kTimerTopic) timer->wake();
    hold->notifyMessageArriving(topic, queueId, queueOffset + 1, tagsCode, props);
  });

  // Replication: a master binds its HA port now (before the store starts, so every append wakes
  // the slave connections); a slave starts following once the store runs.
  replication_ = std::make_unique<BrokerReplication>(*ctx_);
  if (auto r = replication_->bind(); !r)
    return makeError(r.error().code, "HA port " + std::to_string(storeConfig_.haListenPort) + ": " + r.error().message);
  ctx_->replication = replication_.get();

  // Registration hooks exist before any processor can run (the first registration is at the end).
  net::ClientOptions registrarOptions;
  registrarOptions.tls = clientTls_;
  registrar_ = std::make_unique<NamesrvRegistrar>(*ctx_, replication_->haServerAddr(), registrarOptions);
  ctx_->registerBrokerAllSoon = [r = registrar_.get()] { r->registerSoon(); };
  ctx_->registerBrokerAllNow = [r = registrar_.get()] { return r->registerNow(); };
  ctx_->registerTopicNow = [r = registrar_.get()](TopicConfig t) { return r->registerIncrement(std::move(t)); };
  topics_->setOnTopicCreated([r = registrar_.get()](const TopicConfig&) { r->registerSoon(); });

  if (auto r = startAcl(); !r) return r;

  send_ = std::make_unique<SendProcessor>(*ctx_);
  pull_ = std::make_unique<PullProcessor>(*ctx_);
  clientProc_ = std::make_unique<ClientProcessor>(*ctx_);
  offsetProc_ = std::make_unique<OffsetProcessor>(*ctx_);
  send_->registerTo(*ctx_);
  reply_ = std::make_unique<ReplyProcessor>(*ctx_, *send_);
  reply_->registerTo(*ctx_);
  pull_->registerTo(*ctx_);
  clientProc_->registerTo(*ctx_);
  offsetProc_->registerTo(*ctx_);
  transactions_ = std::make_unique<TransactionalMessageService>(*ctx_);
  ctx_->transactions = transactions_.get();
  registerEndTransactionProcessor(*ctx_);
  registerAdminProcessors(*ctx_);
  pop_ = std::make_unique<pop::PopService>(*ctx_);
  ctx_->pop = pop_.get();
  pop::registerPopProcessors(*ctx_, *pop_);
  if (failover) createFailover();

  store_->start();
  started_ = true;  // from here on shutdown() has work to undo
  if (ctx_->role.isMaster()) pop_->start();  // recovered before the first request
  if (auto r = startServers(); !r) return r;
  if (ctx_->role.isMaster()) schedule_->start();
  if (ctx_->role.isMaster()) timer_->start();
  if (ctx_->role.isMaster()) transactions_->start();
  startHousekeeping();
  replication_->start();
  if (failover_) failover_->start();

  if (config_.namesrvList().empty() && config_.fetchNamesrvAddrByAddressServer) {
    addressFetcher_ = std::make_unique<NamesrvAddressFetcher>(
        net::addressServerUrl(config_.rmqAddressServerDomain, config_.rmqAddressServerSubGroup),
        [r = registrar_.get()](const std::string& addrs) { r->setFetchedNamesrvAddr(addrs); });
    addressFetcher_->start();  // the first list before the first registration
  }
  registrar_->start();
  serving_.store(true, std::memory_order_release);
  log::info("broker {} ({}) id {} started at {} as {}, HA {}, store {}, {}", config_.brokerName,
            config_.brokerClusterName, config_.brokerId, config_.brokerAddr(), storeConfig_.brokerRole,
            replication_->haServerAddr(), storeConfig_.rootDir(), storeConfig_.flushDiskType);
  return {};
}

// Failover (failover/README.md): the coordinator flips the role at run time; the delay, timer and
// transaction-check services run only while this broker is master.
void BrokerController::createFailover() {
  FailoverCoordinator::Hooks hooks;
  hooks.becameMaster = [this] {
    schedule_->start();
    timer_->start();  // rebuilds the pending timers from the replicated store
    transactions_->start();
    pop_->start();  // replays the replicated pop log
    registrar_->registerSoon();
  };
  hooks.becameSlave = [this] {
    pop_->shutdown();
    schedule_->shutdown();
    timer_->shutdown();
    transactions_->shutdown();
    registrar_->registerSoon();
  };
  failover_ = std::make_unique<FailoverCoordinator>(*ctx_, *replication_, *epochs_, std::move(hooks));
  registerFailoverProcessor(*ctx_, *failover_);
}

std::string BrokerController::notReadyReason() const {
  if (!serving_.load(std::memory_order_acquire)) return stopped_ ? "shutting down" : "starting (store recovery)";
  if (registrar_->registrationsSucceeded() == 0) return "not registered with a name server yet";
  return "";
}

void BrokerController::writeMetrics(metrics::TextWriter& w) const {
  if (!serving_.load(std::memory_order_acquire)) return;
  BrokerMetricsSources sources;
  sources.latency = latency_.get();
  sources.clientRuntime = clientRuntime_.get();
  sources.connections = (server_ ? server_->connectionCount() : 0) + (vipServer_ ? vipServer_->connectionCount() : 0);
  writeBrokerMetrics(*ctx_, sources, w);
  if (messaging_) {
    metrics::LabelList base{{"cluster", config_.brokerClusterName}, {"broker", config_.brokerName}};
    messaging_->writeMetrics(w, base);
  }
}

void BrokerController::persistAll() {
  if (auto r = offsets_->persist(); !r) log::warn("persist consumer offsets: {}", r.error().message);
  if (auto r = topics_->persist(); !r) log::warn("persist topics: {}", r.error().message);
  if (auto r = groups_->persist(); !r) log::warn("persist subscription groups: {}", r.error().message);
}

void BrokerController::shutdown() {
  if (!started_ || stopped_) return;
  stopped_ = true;
  serving_.store(false, std::memory_order_release);
  log::info("broker {} shutting down", config_.brokerName);
  ctx_->shuttingDown.store(true, std::memory_order_release);
  // Failover: a master gives its lease back now, so a slave takes over at once.
  if (failover_) failover_->stop();
  pullHold_->wakeAll();  // parked pulls re-run now and answer
  if (addressFetcher_) addressFetcher_->stop();
  if (registrar_) registrar_->stop();
  if (acl_) acl_->stop();
  if (messaging_) messaging_->stop();
  if (server_) server_->stop();
  if (vipServer_) vipServer_->stop();
  // After the drain (SYNC_MASTER sends in flight still get their slave ack), before the
  // background thread and the store stop.
  if (replication_) replication_->stop();
  pullHold_->wakeAll();  // anything that parked during the drain
  topics_->setOnTopicCreated(nullptr);
  schedule_->shutdown();
  timer_->shutdown();
  if (pop_) pop_->shutdown();  // its last checkpoint, before the store stops
  if (transactions_) transactions_->shutdown();
  backgroundGuard_.reset();
  background_.stop();
  if (backgroundThread_.joinable()) backgroundThread_.join();
  persistAll();
  store_->shutdown();
  log::info("broker {} stopped", config_.brokerName);
}

}  // namespace rmq::broker
