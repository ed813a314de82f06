#pragma once
// BrokerController: the broker role (master or slave). Owns the store, the metadata managers, the client
// registry, long-poll parking, the remoting servers (listenPort and the VIP port listenPort-2,
// sharing one dispatcher), name-server registration, replication (BrokerReplication: the HA port
// of a master, the HA client and metadata sync of a slave) and the periodic housekeeping.
//
// Lifecycle (called from the main thread, never from a network thread):
//   start(): resolve defaults, open + recover the store, load topics/groups/offsets/delay offsets,
//            register processors, bind the HA port (master), start the store, servers, delay
//            service (master), replication (slave) and registration.
//   shutdown(): stop accepting sends (SERVICE_NOT_AVAILABLE), answer parked pulls, unregister from
//            the name servers, drain and stop the servers, stop the delay service, persist
//            offsets/configs, stop replication, shut the store down cleanly (flush, checkpoint, remove `abort`).
// Threads: network threads from the IoPool; one "background" thread for periodic file writes
// (consumer offsets) and client expiry; the store's and the delay service's own threads.
#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <memory>
#include <thread>

#include "common/result.h"
#include "config/config_file_persister.h"
#include "metrics/text_writer.h"
#include "net/io_pool.h"
#include "net/tls_context.h"
#include "net/tls_handshake.h"
#include "roles/broker/broker_config.h"
#include "store/store_config.h"

namespace rmq::net {
class Dispatcher;
class RemotingServer;
}  // namespace rmq::net
namespace rmq::store {
class MessageStore;
class EpochFile;
}

namespace rmq::acl {
class AclManager;
}

namespace rmq::broker::messaging {
class BrokerMessaging;
}

namespace rmq::broker {

struct BrokerContext;
class TopicConfigManager;
class SubscriptionGroupManager;
class ConsumerOffsetManager;
class ScheduleMessageService;
class TimerMessageService;
class TransactionalMessageService;
class ClientManager;
class PullRequestHold;
class NamesrvRegistrar;
class NamesrvAddressFetcher;
class SendProcessor;
class ReplyProcessor;
class PullProcessor;
class ClientProcessor;
class OffsetProcessor;
class BrokerReplication;
class RequestLatency;
class ClientRuntimeStats;
class FailoverCoordinator;
namespace pop {
class PopService;
}

class BrokerController {
 public:
  // `configFile`: the --config file UPDATE_BROKER_CONFIG writes into (null: none).
  BrokerController(net::IoPool& io, BrokerConfig config, store::StoreConfig storeConfig,
                   std::shared_ptr<config::ConfigFilePersister> configFile = nullptr);
  ~BrokerController();  // shutdown() if started

  // TLS: of both remoting ports (main and VIP; tls.server.mode), and of the broker's own
  // connections to the name servers (tls.enable; null = plaintext). Before start(); default none.
  void setTls(net::ServerTls server, net::TlsContextPtr client) {
    serverTls_ = std::move(server);
    clientTls_ = std::move(client);
  }
  // The certificate of the gRPC port (grpcServerPort; tls.server.*): always permissive, a
  // self-signed one when no certificate is configured. Before start().
  // `portDefaulted`: the dev node's 8081, not asked for by the config: a busy port is then a
  // warning, not a failed start.
  void setGrpc(net::TlsServerSettings settings, bool portDefaulted) {
    grpcTls_ = std::move(settings);
    grpcPortDefaulted_ = portDefaulted;
  }
  uint16_t grpcPort() const;  // bound gRPC port, 0 = none
  Result<void> start();
  void shutdown();  // idempotent

  const BrokerConfig& config() const { return config_; }
  uint16_t port() const;  // bound main port
  BrokerContext& context() { return *ctx_; }

  // GET /readyz: "" once the store is recovered, the broker serves and a name server accepted
  // its registration; else what it waits for. Any thread, any time (before start() too).
  std::string notReadyReason() const;
  // GET /metrics (stats/broker_metrics.h); writes nothing until the broker serves. Any thread.
  void writeMetrics(metrics::TextWriter& w) const;

 private:
  Result<void> openStoreAndManagers();
  Result<void> startServers();
  void startHousekeeping();
  void createFailover();
  Result<void> startAcl();
  void persistAll();

  net::IoPool& io_;
  BrokerConfig config_;
  store::StoreConfig storeConfig_;
  bool started_ = false;
  std::atomic<bool> stopped_{false};  // read by notReadyReason() on the HTTP threads
  std::atomic<bool> serving_{false};  // start() completed, shutdown() not begun (HTTP threads read it)
  std::shared_ptr<config::ConfigFilePersister> configFile_;  // null: none
  std::shared_ptr<RequestLatency> latency_;  // fed by the dispatcher's observer
  std::shared_ptr<ClientRuntimeStats> clientRuntime_;  // consumers' running info (masters; null when off)

  std::unique_ptr<store::MessageStore> store_;
  std::unique_ptr<TopicConfigManager> topics_;
  std::unique_ptr<SubscriptionGroupManager> groups_;
  std::unique_ptr<ConsumerOffsetManager> offsets_;
  std::unique_ptr<ScheduleMessageService> schedule_;
  std::unique_ptr<TimerMessageService> timer_;
  std::unique_ptr<pop::PopService> pop_;  // POP consumption (masters run it)
  std::unique_ptr<TransactionalMessageService> transactions_;
  std::unique_ptr<ClientManager> clients_;
  std::unique_ptr<PullRequestHold> pullHold_;
  std::shared_ptr<net::Dispatcher> dispatcher_;
  std::unique_ptr<BrokerContext> ctx_;

  std::unique_ptr<SendProcessor> send_;
  std::unique_ptr<ReplyProcessor> reply_;
  std::unique_ptr<PullProcessor> pull_;
  std::unique_ptr<ClientProcessor> clientProc_;
  std::unique_ptr<OffsetProcessor> offsetProc_;
  std::unique_ptr<net::RemotingServer> server_;
  std::unique_ptr<net::RemotingServer> vipServer_;
  net::ServerTls serverTls_;
  net::TlsContextPtr clientTls_;
  net::TlsServerSettings grpcTls_;
  bool grpcPortDefaulted_ = false;
  std::unique_ptr<messaging::BrokerMessaging> messaging_;  // grpcServerPort > 0 only
  std::unique_ptr<NamesrvRegistrar> registrar_;
  std::unique_ptr<NamesrvAddressFetcher> addressFetcher_;  // fetchNamesrvAddrByAddressServer without namesrvAddr
  std::unique_ptr<acl::AclManager> acl_;  // aclEnable only
  std::unique_ptr<BrokerReplication> replication_;  // HA master acceptor or slave follower + metadata sync
  std::unique_ptr<store::EpochFile> epochs_;           // failover only
  std::unique_ptr<FailoverCoordinator> failover_;      // failover only

  asio::io_context background_;
  std::unique_ptr<asio::executor_work_guard<asio::io_context::executor_type>> backgroundGuard_;
  std::thread backgroundThread_;
};

}  // namespace rmq::broker
