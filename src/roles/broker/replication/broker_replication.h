#pragma once
// BrokerReplication: the broker's side of master/slave replication (PROTOCOL.md §9), built on
// src/repl.
//  - Master (ASYNC_MASTER / SYNC_MASTER): an HaMaster on haListenPort (0 = listenPort + 1), bound
//    before the store starts so every append wakes the slave connections; its address
//    brokerIP2:haPort is what the broker registers as haServerAddr.
//  - Slave: an HaClient following haMasterAddress (when set, length >= 6 as in Java) or the
//    master HA address the name servers answer to REGISTER_BROKER (onRegistered), plus
//    SlaveSynchronize (metadata from the master's masterAddr).
//  - runtime info keys (GET_BROKER_RUNTIME_INFO): master: haListenPort, haConnectionCount,
//    slaveFallBehindMuch (commit log end − best slave ack, Java's DefaultMessageStore name),
//    haSlaves ("addr@ackOffset;..."); slave: masterAddr, haMasterAddress, haConnected,
//    haMasterOffsetSeen.
//  - Failover (failoverEnable): both sides exist on every broker, and the failover coordinator
//    switches between them at run time (actAsMaster / actAsSlave): the HA port is bound at start
//    but refuses slaves unless this broker is master; the HA client follows the master etcd names,
//    never the name servers' answer; both speak the epoch handshake (repl/ha_protocol.h) and the
//    master acknowledges sends through the in-sync set (repl/replica_set.h).
// Threads: the HA services own their threads; onRegistered() from the registrar's network thread;
// actAs* from the coordinator's thread.
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "roles/broker/broker_context.h"

namespace rmq::repl {
class HaMaster;
class HaClient;
class ReplicaSet;
}  // namespace rmq::repl

namespace rmq::broker {

class SlaveSynchronize;

class BrokerReplication {
 public:
  explicit BrokerReplication(BrokerContext& ctx);
  ~BrokerReplication();

  // Master: binds the HA port. Call after the store is opened and before it starts.
  Result<void> bind();
  // Slave: starts following the master and the metadata sync. No-op on masters.
  void start();
  void stop();  // idempotent; before the store shuts down

  // Registration answer (slaves): the master's remoting address and its HA address (may be empty).
  void onRegistered(std::string_view masterAddr, std::string_view haServerAddr);

  // Failover: stop following (returns once no replicated frame can land), then serve slaves of
  // `epoch` (begun at `epochStart`) with `inSync` as the in-sync set.
  void detachFromMaster();
  // Failover, a master stepping down: refuses slaves (closing their connections) and follows nobody
  // until actAsSlave.
  void stepDown();
  void actAsMaster(int64_t epoch, int64_t epochStart, std::vector<int64_t> inSync);
  // Failover: refuse slaves; follow the master of `epoch` (remoting and HA addresses).
  void actAsSlave(const std::string& masterAddr, const std::string& masterHaAddr, int64_t epoch);
  repl::ReplicaSet* replicas() const { return replicas_.get(); }  // failover only (else null)
  int64_t masterEpochSeen() const;  // slave: the epoch of the master's last handshake (0: none)

  std::string haServerAddr() const;  // brokerIP2:haListenPort (masters register it)
  uint16_t haPort() const;
  void appendRuntimeInfo(std::vector<std::pair<std::string, std::string>>& kv) const;
  // Master: each connected slave's address and acknowledged commit-log offset (-1 = none yet);
  // empty on a slave. For GET /metrics (replication lag). Any thread.
  std::vector<std::pair<std::string, int64_t>> slaveAcks() const;

 private:
  BrokerContext& ctx_;
  bool slave_;
  bool failover_;
  bool fixedMasterAddress_;
  std::unique_ptr<repl::ReplicaSet> replicas_;  // failover only  // haMasterAddress configured: the name server's answer is ignored
  std::unique_ptr<repl::HaMaster> master_;
  std::unique_ptr<repl::HaClient> client_;
  std::unique_ptr<SlaveSynchronize> sync_;
};

}  // namespace rmq::broker
