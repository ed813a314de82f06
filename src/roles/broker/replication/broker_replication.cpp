#include "roles/broker/replication/broker_replication.h"

#include <fmt/format.h>

#include "common/log.h"
#include "repl/ha_client.h"
#include "repl/ha_master.h"
#include "repl/replica_set.h"
#include "roles/broker/replication/slave_synchronize.h"
#include "store/message_store.h"

namespace rmq::broker {

BrokerReplication::BrokerReplication(BrokerContext& ctx)
    : ctx_(ctx),
      slave_(ctx.storeConfig.isSlave()),
      failover_(ctx.config.failover.failoverEnable),
      fixedMasterAddress_(ctx.storeConfig.haMasterAddress.size() >= 6) {
  if (ctx_.storeConfig.haListenPort == 0) ctx_.storeConfig.haListenPort = ctx_.config.listenPort + 1;
  if (failover_) replicas_ = std::make_unique<repl::ReplicaSet>(ctx_.store);
  if (slave_ || failover_) {
    client_ = std::make_unique<repl::HaClient>(ctx_.store, ctx_.storeConfig);
    auto period = failover_ ? std::chrono::milliseconds(ctx_.config.failover.failoverMetadataSyncIntervalMs)
                            : std::chrono::milliseconds(10000);
    sync_ = std::make_unique<SlaveSynchronize>(ctx_, period);
    if (failover_) client_->enableEpochHandshake(ctx_.config.brokerId);
  }
  if (!slave_ || failover_) master_ = std::make_unique<repl::HaMaster>(ctx_.store, ctx_.storeConfig, replicas_.get());
  if (failover_) master_->setAccepting(false);  // until the coordinator makes this broker master
}

BrokerReplication::~BrokerReplication() { stop(); }

Result<void> BrokerReplication::bind() {
  if (!master_) return {};
  return master_->start("0.0.0.0", static_cast<uint16_t>(ctx_.storeConfig.haListenPort));
}

void BrokerReplication::start() {
  if (!client_) return;
  if (fixedMasterAddress_ && !failover_)
    log::info("HA: slave follows the configured haMasterAddress {}", ctx_.storeConfig.haMasterAddress);
  client_->start();
  sync_->start();
}

void BrokerReplication::stop() {
  if (sync_) sync_->stop();
  if (client_) client_->stop();
  if (master_) master_->stop();
}

void BrokerReplication::onRegistered(std::string_view masterAddr, std::string_view haServerAddr) {
  if (!slave_ || failover_) return;  // failover: etcd names the master, not the name servers
  // Java: the HA address only when the answer has one (else keep following the last known
  // master); the sync address always, so a vanished master stops the metadata sync.
  if (!fixedMasterAddress_ && !haServerAddr.empty()) client_->setMasterAddress(std::string(haServerAddr));
  sync_->setMasterAddr(std::string(masterAddr));
}

void BrokerReplication::detachFromMaster() {
  if (sync_) sync_->setMasterAddr("");
  if (client_) client_->detach();
}

void BrokerReplication::stepDown() {
  master_->setAccepting(false);
  detachFromMaster();
}

void BrokerReplication::actAsMaster(int64_t epoch, int64_t epochStart, std::vector<int64_t> inSync) {
  detachFromMaster();
  replicas_->begin(epoch, epochStart, std::move(inSync));
  master_->setAccepting(true);
}

void BrokerReplication::actAsSlave(const std::string& masterAddr, const std::string& masterHaAddr, int64_t epoch) {
  master_->setAccepting(false);
  client_->follow(masterHaAddr, epoch);
  sync_->setMasterAddr(masterAddr);
}

int64_t BrokerReplication::masterEpochSeen() const { return client_ ? client_->masterEpoch() : 0; }

uint16_t BrokerReplication::haPort() const {
  return master_ ? master_->port() : static_cast<uint16_t>(ctx_.storeConfig.haListenPort);
}

std::string BrokerReplication::haServerAddr() const {
  return ctx_.config.brokerIP2 + ":" + std::to_string(haPort());
}

std::vector<std::pair<std::string, int64_t>> BrokerReplication::slaveAcks() const {
  std::vector<std::pair<std::string, int64_t>> out;
  if (master_)
    for (auto& s : master_->slaves()) out.emplace_back(s.address, s.ackOffset);
  return out;
}

void BrokerReplication::appendRuntimeInfo(std::vector<std::pair<std::string, std::string>>& kv) const {
  auto put = [&](std::string k, auto v) { kv.emplace_back(std::move(k), fmt::format("{}", v)); };
  if (failover_) {
    put("failoverEpoch", ctx_.role.epoch());
    put("failoverRole", ctx_.role.isMaster() ? "master" : "slave");
    put("failoverBrokerId", ctx_.config.brokerId);
    // false on a master means fenced: its lease is not proven, it acknowledges no send (drills read it).
    put("failoverMayAcknowledge", ctx_.role.mayAcknowledge() ? "true" : "false");
    if (ctx_.role.isMaster()) {
      std::string ids;
      for (int64_t id : replicas_->inSync()) ids += fmt::format("{}{}", ids.empty() ? "" : ",", id);
      put("failoverInSync", ids);
    }
  }
  if (master_ && (!failover_ || ctx_.role.isMaster())) {
    put("haListenPort", master_->port());
    put("haConnectionCount", master_->connectionCount());
    put("slaveFallBehindMuch", master_->slaveFallBehind());
    std::string slaves;
    for (auto& s : master_->slaves()) slaves += fmt::format("{}{}@{}", slaves.empty() ? "" : ";", s.address, s.ackOffset);
    put("haSlaves", slaves);
    return;
  }
  put("masterAddr", sync_->masterAddr());
  put("haMasterAddress", client_->masterAddress());
  put("haConnected", client_->connected() ? "true" : "false");
  put("haMasterOffsetSeen", client_->masterOffsetSeen());
}

}  // namespace rmq::broker
