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
// Threads: the HA services own their threads; onRegistered() from the registrar's network thread.
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

  std::string haServerAddr() const;  // brokerIP2:haListenPort (masters register it)
  uint16_t haPort() const;
  void appendRuntimeInfo(std::vector<std::pair<std::string, std::string>>& kv) const;
  // Master: each connected slave's address and acknowledged commit-log offset (-1 = none yet);
  // empty on a slave. For GET /metrics (replication lag). Any thread.
  std::vector<std::pair<std::string, int64_t>> slaveAcks() const;

 private:
  BrokerContext& ctx_;
  bool slave_;
  bool fixedMasterAddress_;  // haMasterAddress configured: the name server's answer is ignored
  std::unique_ptr<repl::HaMaster> master_;
  std::unique_ptr<repl::HaClient> client_;
  std::unique_ptr<SlaveSynchronize> sync_;
};

}  // namespace rmq::broker
