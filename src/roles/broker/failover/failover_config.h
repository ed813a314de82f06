#pragma once
// FailoverConfig: the keys of automatic failover (README.md in this folder). Off by default; with
// failoverEnable = false nothing here is read and the broker is exactly a RocketMQ 4.x
// master or slave. Field names are the config keys (TOML / .properties), in RocketMQ's style;
// brokerElectionPriority and haMaxTimeSlaveNotCatchup are RocketMQ 5.x controller-mode names.
#include <cstdint>
#include <string>
#include <vector>

#include "config/field_visitor.h"

namespace rmq::broker {

struct FailoverConfig {
  bool failoverEnable = false;
  std::string failoverEtcdEndpoints = "127.0.0.1:2379";  // "host:port;host:port" (etcd v3 client URLs)
  std::string failoverEtcdPrefix = "/rmqnode";            // keys: <prefix>/<cluster>/<brokerName>/...
  // The master's etcd lease. It renews every failoverRenewIntervalMs and stops acknowledging
  // sends failoverFenceMarginMs before the lease can expire (see README: the timing argument).
  int64_t failoverLeaseTtlMs = 2000;
  int64_t failoverRenewIntervalMs = 250;
  int64_t failoverFenceMarginMs = 500;
  int64_t failoverEtcdRequestTimeoutMs = 400;  // one etcd call (then the next endpoint)
  // The coordinator's pace: a master checks its slaves' progress (the in-sync set) this often; a
  // slave reads the group this often while the group has no master.
  int64_t failoverCheckIntervalMs = 100;
  // A full read of the group's records when nothing changed: a master's every this often (its
  // lease fences it meanwhile), a slave's at the latest this long after the last one (in between
  // it watches the leader key, so it learns of a lost master at once).
  int64_t failoverGroupReadIntervalMs = 1000;
  // Candidates ranked r (0 = best) wait r times this before they try to take mastership.
  int64_t failoverRankDelayMs = 200;
  // Ties between equally advanced candidates: the lower value wins (RocketMQ 5.x's meaning).
  int32_t brokerElectionPriority = 100;
  // An in-sync slave whose acks stay behind the master's end this long leaves the in-sync set
  // (a disconnected one leaves at once).
  int64_t haMaxTimeSlaveNotCatchup = 3000;
  // Slaves copy consumer offsets, delay offsets and changed topics / groups from the master this
  // often (4.x slaves: every 10 s), so a new master is current.
  int64_t failoverMetadataSyncIntervalMs = 1000;

  void visit(config::FieldVisitor& v);
  std::vector<std::string> etcdEndpoints() const;  // failoverEtcdEndpoints split on ';'
};

}  // namespace rmq::broker
