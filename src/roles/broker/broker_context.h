#pragma once
// BrokerContext: what every broker component can reach. Built once by BrokerController::start()
// (after the store and the managers are loaded, before the servers accept) and valid until
// BrokerController::shutdown() returns. Components keep a reference to it.
//
// Threads: processors run on the network threads (IoPool); the references here are to objects
// that are thread-safe themselves. Anything that blocks (file writes, fsync) goes to
// `background` (a single dedicated thread), never to a network thread.
//
// Who fills what:
//  - broker-core (controller): io, config, storeConfig, store, dispatcher, clients, pullHold,
//    background, storeHost, the hooks below.
//  - broker-admin managers (constructed and loaded by the controller): topics, groups, offsets,
//    schedule. Their processors are registered by registerAdminProcessors(ctx) (admin side),
//    called by the controller after the core processors.
// Manager constructors: see their headers; BrokerController::openStoreAndManagers() builds them
// from BrokerConfig + StoreConfig::configDir().
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "common/message.h"
#include "config/config_file_persister.h"
#include "net/connection.h"
#include "net/dispatcher.h"
#include "net/io_pool.h"
#include "roles/broker/broker_config.h"
#include "roles/broker/failover/broker_role.h"
#include "roles/broker/metadata/topic_config.h"

namespace rmq::store {
class MessageStore;
struct StoreConfig;
}  // namespace rmq::store

namespace rmq::acl {
class AclManager;
}

namespace rmq::broker {

class TopicConfigManager;        // broker-admin: topics.json (topic_config_manager.h)
class SubscriptionGroupManager;  // broker-admin: subscriptionGroup.json
class ConsumerOffsetManager;     // broker-admin: consumerOffset.json
class ScheduleMessageService;    // broker-admin: delay levels, delayOffset.json
class TimerMessageService;       // timer messages (delivery/timer_message_service.h)
class ClientManager;             // broker-core: producer/consumer registries (client_manager.h)
class PullRequestHold;           // broker-core: parked long-poll pulls (pull_request_hold.h)
class TransactionalMessageService;  // half messages, END_TRANSACTION, check-back (transaction/)
class BrokerReplication;         // HA master / slave follower (replication/broker_replication.h)
class PutStatsSampler;           // runtime-info totals and TPS (stats/broker_runtime_info.h)
class RequestLatency;            // per-request-code latency histograms (stats/request_latency.h)
namespace pop {
class PopService;                // POP consumption (pop/pop_service.h)
}

struct BrokerContext {
  net::IoPool& io;
  BrokerConfig& config;
  store::StoreConfig& storeConfig;
  store::MessageStore& store;
  net::Dispatcher& dispatcher;  // shared by the main port and the VIP port (listenPort-2)

  TopicConfigManager& topics;
  SubscriptionGroupManager& groups;
  ConsumerOffsetManager& offsets;
  ScheduleMessageService* schedule = nullptr;  // null until the admin side provides it
  ClientManager& clients;
  PullRequestHold& pullHold;

  asio::any_io_executor background;  // one thread for blocking work (persisting JSON files)
  HostAddress storeHost;             // brokerIP1:listenPort, stamped on every stored record
  std::atomic<bool> shuttingDown{false};

  // Re-register with every name server soon (oneway, full topic table), e.g. after a topic was
  // auto-created or created by UPDATE_AND_CREATE_TOPIC. Safe from any thread.
  std::function<void()> registerBrokerAllSoon;
  // Registers with every name server now and completes when all answered (or timed out), like
  // Java's synchronous registerIncrementBrokerData after UPDATE_AND_CREATE_TOPIC. Await it from
  // a processor coroutine (it never blocks the thread).
  std::function<asio::awaitable<void>()> registerBrokerAllNow;
  // Java's registerIncrementBrokerData after UPDATE_AND_CREATE_TOPIC: only that topic (and the
  // table's data version) to every name server, completing when all answered. Null in component tests.
  std::function<asio::awaitable<void>(TopicConfig)> registerTopicNow;
  // Pushes config.connection (serverChannelMaxIdleTimeSeconds, maxFrameSize, ...) to the live
  // limits of both ports' connections, after UPDATE_BROKER_CONFIG changed it. Set by the controller
  // before the servers accept; null in component tests.
  std::function<void()> applyConnectionLimits;
  // Set by the controller before any processor runs (send path: TRAN_MSG; END_TRANSACTION).
  TransactionalMessageService* transactions = nullptr;
  // Set by the controller before any processor runs (null in component tests): the registrar
  // hands it the name servers' answer, runtime info reads its HA figures.
  BrokerReplication* replication = nullptr;
  // The once-a-second stats sampler (set by startPutStatsSampler, at processor registration).
  std::shared_ptr<PutStatsSampler> putStats;
  // The dispatcher's latency histograms (set by the controller before any processor runs; null
  // in component tests): runtime info's putMessageDistributeTime / putLatency99.
  std::shared_ptr<RequestLatency> latency;
  TimerMessageService* timer = nullptr;  // set by the controller (runtime info, /metrics)
  // POP consumption (pop/pop_service.h): the gRPC endpoint's ReceiveMessage / AckMessage / ... call
  // it. Set by the controller before any processor runs; running on a master only.
  pop::PopService* pop = nullptr;
  // The ACL (aclEnable = true), set by the controller before any processor runs; null when off.
  acl::AclManager* acl = nullptr;
  // The --config file UPDATE_BROKER_CONFIG writes its keys into (config/config_file_persister.h);
  // without one (component tests, no --config) an update is applied in memory only.
  std::shared_ptr<config::ConfigFilePersister> configFile = std::make_shared<config::ConfigFilePersister>();

  // Master or slave now, the brokerId registered, the failover epoch and fence (failover/broker_role.h).
  // Configured by the controller at start; only the failover coordinator changes it later.
  BrokerRole role;

  void registerProcessor(int code, net::RequestHandler handler) {
    dispatcher.registerProcessor(code, std::move(handler));
  }
  bool isShuttingDown() const { return shuttingDown.load(std::memory_order_acquire); }
};

// Implemented by broker-admin (admin processors, consumer send-back, offsets/topic/group admin
// codes). Called once by the controller after the core processors are registered and before
// the servers start accepting.
void registerAdminProcessors(BrokerContext& ctx);

}  // namespace rmq::broker
