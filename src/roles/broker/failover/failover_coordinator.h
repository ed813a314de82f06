#pragma once
// FailoverCoordinator: makes a master/slave group heal itself (failoverEnable), with etcd as the
// one source of truth (README.md in this folder: records, transactions, timing argument).
//  - Lease: every broker of the group holds an etcd lease, renewed every failoverRenewIntervalMs.
//    The master's `leader` key is attached to it. The master acknowledges sends only until
//    (send time of its last successful renewal) + TTL − failoverFenceMarginMs (BrokerRole).
//  - Master: keeps the in-sync set in etcd current (shrink after etcd accepted, grow before
//    asking: repl/replica_set.h) in transactions that compare the state's mod revision and that
//    the leader key still carries its lease; demotes itself when the state names a higher epoch
//    or another master, when its leader key is gone, or when a slave's handshake named a higher
//    epoch.
//  - Reads: a master reads the group's records every failoverGroupReadIntervalMs (nobody else can
//    change them while its leader key lives; its own writes update its copy), and at once after a
//    failed write or a lost lease. A slave watches the leader key between reads (an etcd watch), so
//    a lost master wakes it at once; without a master it reads every failoverCheckIntervalMs.
//  - Slave: follows the state's master at its epoch (cutting a tail the group never had first);
//    when the leader key is gone and it is a candidate (in the in-sync set, or the old master),
//    it waits rank × failoverRankDelayMs and takes mastership in one transaction (state mod
//    revision unchanged, leader key absent): epoch + 1, then serves at once (no restart).
//  - Bootstrap: with no state in etcd, a broker configured as master (brokerRole ≠ SLAVE) creates
//    epoch 1 with itself as master; configured slaves wait for a master.
// Threads: its own thread and io_context (lease renewals never wait behind file writes or client
// traffic). Role changes call the controller's hooks on that thread.
#include <asio/awaitable.hpp>
#include <asio/io_context.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/result.h"
#include "roles/broker/broker_context.h"
#include "roles/broker/failover/group_record.h"

namespace rmq::coord {
class EtcdClient;
struct KeyValue;
}  // namespace rmq::coord
namespace rmq::store {
class EpochFile;
}

namespace rmq::broker {

class BrokerReplication;

class FailoverCoordinator {
 public:
  struct Hooks {
    std::function<void()> becameMaster;  // start the delay / transaction services, register as 0
    std::function<void()> becameSlave;   // stop them, register with the own brokerId
  };
  FailoverCoordinator(BrokerContext& ctx, BrokerReplication& replication, store::EpochFile& epochs, Hooks hooks);
  ~FailoverCoordinator();  // stop()

  void start();
  // A master gives its lease back (the group elects at once instead of after the TTL).
  void stop();

  struct Status {
    bool master = false;
    int64_t epoch = 0;
    std::optional<GroupState> state;  // as last read from etcd
    std::vector<MemberRecord> members;
    std::string lastError;
  };
  Status status() const;
  // JSON of status() plus, on a master, each slave's ack and lag (rmqadmin failoverStatus).
  std::string statusJson() const;

  // Planned switchover (master only): stop taking new sends, wait until `target` acknowledged the
  // whole commit log (≤ timeout), then hand mastership to it in one transaction and step down.
  // No acknowledged message is lost, ASYNC_MASTER included. Runs on the coordinator's thread;
  // await it from any executor.
  struct HandOver {  // default-constructible: asio::co_spawn hands one back across executors
    bool ok = false;
    std::string message;  // what happened, or why nothing was handed over
  };
  asio::awaitable<HandOver> handOver(int64_t target, std::chrono::milliseconds timeout);
  asio::io_context& executorContext() { return io_; }

 private:
  struct View {  // one read of the group's records
    std::optional<GroupState> state;
    int64_t stateRevision = 0;  // mod revision of `state` (0: absent)
    std::optional<LeaderRecord> leader;
    int64_t leaderLease = 0;
    int64_t leaderRevision = 0;  // mod revision of `leader` (0: absent)
    std::vector<MemberRecord> members;
  };

  asio::awaitable<void> leaseLoop();
  asio::awaitable<void> groupLoop();
  asio::awaitable<Result<View>> readView();
  asio::awaitable<void> masterTick(View& v);
  asio::awaitable<void> awaitNextTick(const View& v);
  asio::awaitable<void> slaveTick(const View& v);
  asio::awaitable<void> bootstrap(const View& v);
  asio::awaitable<void> elect(const View& v);
  asio::awaitable<void> publishMember();
  asio::awaitable<void> updateInSync(View& v);
  void follow(const GroupState& s);
  void becomeMaster(const GroupState& s, int64_t leaseId);
  void demote(int64_t epoch, const std::string& why);
  bool isCandidate(const GroupState& s) const;
  MemberRecord self() const;
  void noteError(const std::string& e);
  asio::awaitable<void> sleep(std::chrono::milliseconds d);

  BrokerContext& ctx_;
  BrokerReplication& repl_;
  store::EpochFile& epochs_;
  Hooks hooks_;
  GroupKeys keys_;
  std::chrono::milliseconds checkEvery_, renewEvery_, fenceMargin_, readEvery_;

  asio::io_context io_;
  std::thread thread_;
  std::atomic<bool> running_{false};
  std::unique_ptr<coord::EtcdClient> etcd_;

  // Coordinator thread only.
  int64_t leaseId_ = 0;        // this broker's lease (0: none yet / lost)
  int64_t masterLeaseId_ = 0;  // the lease the leader key carries while master
  int64_t followingEpoch_ = 0; // epoch of the master the HA client follows (0: none)
  std::chrono::steady_clock::time_point leaseValidUntil_{};  // of leaseId_: last renewal's send + TTL − margin
  int64_t lastMasterEnd_ = 0;  // slave: the master's commit-log end as it last published it
  std::chrono::steady_clock::time_point lastMemberPut_{};
  MemberRecord lastMember_;
  int64_t memberLease_ = 0;  // the lease the member record was last put with
  std::optional<View> view_;  // the last read, kept current by the master's own writes
  std::chrono::steady_clock::time_point nextRead_{};  // master: when to read the group again

  mutable std::mutex statusMu_;
  Status status_;
};

}  // namespace rmq::broker
