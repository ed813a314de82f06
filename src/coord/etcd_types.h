#pragma once
// The values EtcdClient (etcd_client.h) takes and returns: etcd v3's KeyValue, Compare, RequestOp,
// TxnResponse and LeaseGrantResponse reduced to what failover coordination uses.
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"

namespace rmq::coord {

// Error codes of coord's Results (never sent to a RocketMQ peer; negative, below the remoting
// client's -1..-4).
inline constexpr int kLeaseNotFound = -100;    // the lease expired or was revoked (or never existed)
inline constexpr int kEtcdUnavailable = -101;  // no endpoint answered (connection, timeout, 5xx, closed)
inline constexpr int kEtcdRejected = -102;     // etcd answered an error (4xx) or an undecodable body

inline bool isLeaseGone(const Error& e) { return e.code == kLeaseNotFound; }

struct KeyValue {
  std::string key, value;
  int64_t createRevision = 0, modRevision = 0, version = 0, lease = 0;
};

struct Compare {  // etcd's Compare: `target(key) op number/value`
  enum class Target { Version, Create, Mod, Value, Lease };
  enum class Op { Equal, Greater, Less, NotEqual };
  std::string key;
  Target target = Target::Version;
  Op op = Op::Equal;
  int64_t number = 0;  // Version / Create / Mod / Lease (a key that does not exist has 0 for each)
  std::string value;   // Value
};

struct TxnOp {  // RequestOp: put, delete or range
  enum class Kind { Put, Delete, Range };
  Kind kind = Kind::Put;
  std::string key, value;
  int64_t lease = 0;    // Put
  bool prefix = false;  // Range/Delete over every key starting with `key`
};

struct TxnResult {
  bool succeeded = false;  // the compares held: the success ops ran (else the failure ops)
  int64_t revision = 0;    // the store's revision after the txn
  std::vector<std::vector<KeyValue>> ranges;  // one per Range op of the branch that ran, in order
};

struct LeaseGrant {
  int64_t id = 0;
  int64_t ttlSeconds = 0;
};

}  // namespace rmq::coord
