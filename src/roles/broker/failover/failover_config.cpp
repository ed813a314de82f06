#include "roles/broker/failover/failover_config.h"

#include "common/text_split.h"

namespace rmq::broker {

void FailoverConfig::visit(config::FieldVisitor& v) {
  v.field({"failoverEnable", "Automatic failover of this master/slave group, coordinated by etcd"}, failoverEnable);
  v.field({"failoverEtcdEndpoints", "etcd v3 client addresses, 'host:port;host:port'"}, failoverEtcdEndpoints);
  v.field({"failoverEtcdPrefix", "Key prefix of this cluster's failover records in etcd"}, failoverEtcdPrefix);
  v.field({"failoverLeaseTtlMs", "The master's etcd lease TTL (ms; etcd rounds up to seconds, 2 s minimum)", 2000,
           60000},
          failoverLeaseTtlMs);
  v.field({"failoverRenewIntervalMs", "Lease renewal period (ms)", 20, 30000}, failoverRenewIntervalMs);
  v.field({"failoverFenceMarginMs", "Stop acknowledging sends this long before the lease could expire (ms)", 100,
           30000},
          failoverFenceMarginMs);
  v.field({"failoverEtcdRequestTimeoutMs", "Timeout of one etcd request (ms)", 50, 30000},
          failoverEtcdRequestTimeoutMs);
  v.field({"failoverCheckIntervalMs", "Coordinator pace: master's in-sync checks, slave's reads without a master (ms)",
           20, 30000},
          failoverCheckIntervalMs);
  v.field({"failoverGroupReadIntervalMs",
           "Full read of the group's records when nothing changed (ms; slaves watch the leader key between)", 100,
           60000},
          failoverGroupReadIntervalMs);
  v.field({"failoverRankDelayMs", "Election: a candidate of rank r waits r times this (ms)", 0, 30000},
          failoverRankDelayMs);
  v.field({"brokerElectionPriority", "Election tie-break between equally advanced slaves: lower wins", 0,
           1000000},
          brokerElectionPriority);
  v.field({"haMaxTimeSlaveNotCatchup", "Failover: an in-sync slave behind for this long leaves the in-sync set (ms)",
           100, 3600000},
          haMaxTimeSlaveNotCatchup);
  v.field({"failoverMetadataSyncIntervalMs", "Failover: slaves copy offsets and metadata from the master this often (ms)",
           100, 60000},
          failoverMetadataSyncIntervalMs);
}

std::vector<std::string> FailoverConfig::etcdEndpoints() const { return splitTrimmed(failoverEtcdEndpoints, ';'); }

}  // namespace rmq::broker
