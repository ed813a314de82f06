#pragma once
// ReplicaSet: a failover master's view of its slaves (src/roles/broker/failover): its epoch, the
// in-sync set and each slave's acknowledged offset. The SYNC_MASTER completion under failover:
// a send is acknowledged once every slave of the in-sync set reported its end (the confirmed
// offset = the smallest ack over the set; an empty set confirms everything). The confirmed
// offset goes to MessageStore::resetSlaveAck, so shrinking the set (after etcd accepted it)
// releases the waiting sends, and growing it makes later sends wait for the new member too.
//
// Growing safely: call setInSync with the larger set BEFORE etcd is asked to record it, so no send
// is acknowledged without the new member while the change is in flight (RocketMQ 5.x's loss on
// expansion, apache/rocketmq#5663); shrink only after etcd accepted the smaller set.
// Threads: HA thread (reports, connections) and the coordinator's thread; one mutex.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "store/message_store.h"

namespace rmq::repl {

class ReplicaSet {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ReplicaSet(store::MessageStore& store) : store_(store) {}

  // A new mastership: epoch, where it began, the in-sync slaves. Forgets every earlier ack.
  void begin(int64_t epoch, int64_t epochStart, std::vector<int64_t> inSync);
  int64_t epoch() const;
  int64_t epochStart() const;

  void setInSync(std::vector<int64_t> ids);  // the master itself not included
  std::vector<int64_t> inSync() const;
  int64_t confirmedOffset() const;  // INT64_MAX while the set is empty

  // HA connections (the master's HA thread).
  // onConnected returns the connection's token; a replica that reconnected before its old
  // connection was dropped stays connected when the old one's onDisconnected comes late.
  uint64_t onConnected(int64_t id);
  void onDisconnected(int64_t id, uint64_t token);
  // A slave's handshake named an epoch above ours: this master is stale (the coordinator demotes).
  void noteEpochHeard(int64_t epoch);
  int64_t highestEpochHeard() const;
  void onReport(int64_t id, int64_t ackOffset);

  struct Replica {
    int64_t id = 0;
    int64_t ack = -1;
    bool connected = false;
    bool inSync = false;
    Clock::time_point caughtUpAt;  // last tick at which its ack had reached the master's end
    uint64_t token = 0;            // current connection
  };
  // Coordinator tick: `end` is the master's commit log end now; a replica whose ack reached the
  // end sampled at the previous tick counts as caught up now.
  void tick(int64_t end);
  std::vector<Replica> replicas() const;

 private:
  void publishLocked();  // confirmed offset -> the store

  store::MessageStore& store_;
  mutable std::mutex mu_;
  int64_t epoch_ = 0;
  int64_t epochStart_ = 0;
  int64_t lastTickEnd_ = 0;
  std::map<int64_t, Replica> replicas_;
  std::vector<int64_t> inSync_;
  int64_t confirmed_ = -2;  // what the store was last given (-2: nothing yet)
  int64_t epochHeard_ = 0;
  uint64_t nextToken_ = 0;
};

}  // namespace rmq::repl
