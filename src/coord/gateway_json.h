#pragma once
// The JSON bodies of etcd's v3 HTTP gateway (grpc-gateway, proto3 JSON; etcd 3.4 facts in
// README.md): request builders and answer decoders. Keys and values travel base64, int64 fields as
// JSON strings (numbers are accepted too), absent fields mean zero / false / empty; answers name
// fields in snake_case (3.4's OrigName), camelCase is accepted as well. No sockets here.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "coord/etcd_types.h"

namespace rmq::coord {

// etcd's range end for "every key starting with `prefix`" (clientv3 GetPrefixRangeEnd): the prefix
// with its last byte below 0xff incremented and the rest cut; "\0" (no upper bound) when there is none.
std::string prefixRangeEnd(std::string_view prefix);

namespace gateway {

std::string rangeRequest(std::string_view key, bool prefix);
// /v3/watch: one create_request for `key` (or the prefix) from `startRevision` on.
std::string watchRequest(std::string_view key, bool prefix, int64_t startRevision);
std::string putRequest(std::string_view key, std::string_view value, int64_t lease);
std::string deleteRequest(std::string_view key, bool prefix);
std::string txnRequest(const std::vector<Compare>& compares, const std::vector<TxnOp>& success,
                       const std::vector<TxnOp>& failure);
std::string leaseGrantRequest(int64_t ttlSeconds);
std::string leaseIdRequest(int64_t id);  // keepalive, revoke, timetolive: {"ID":"<id>"}

Result<std::vector<KeyValue>> decodeRange(std::string_view body);
Result<int64_t> decodeRevision(std::string_view body);  // put: header.revision
Result<int64_t> decodeDeleted(std::string_view body);
Result<TxnResult> decodeTxn(std::string_view body);
Result<LeaseGrant> decodeLeaseGrant(std::string_view body);
// /v3/lease/keepalive answers one stream message {"result":{"ID":..,"TTL":..}} (or {"error":{..}});
// TTL absent or <= 0 = the lease is gone (kLeaseNotFound).
Result<int64_t> decodeKeepAlive(std::string_view body, int64_t id);
// One message of a /v3/watch stream ({"result":{..}} or {"error":{..}}).
struct WatchMessage {
  bool created = false;          // the watch's confirmation
  bool canceled = false;         // etcd ended the watch (e.g. compacted start revision)
  int64_t compactRevision = 0;   // set when the start revision was compacted away
  size_t events = 0;             // changes this message reports
};
Result<WatchMessage> decodeWatchMessage(std::string_view message);
// /v3/lease/timetolive: remaining seconds; TTL -1 = the lease is gone (kLeaseNotFound).
Result<int64_t> decodeTimeToLive(std::string_view body, int64_t id);
// An error answer (HTTP status >= 400): {"error":"..","message":"..","code":<grpc code>}.
// Lease not found (gRPC NotFound, "requested lease not found") -> kLeaseNotFound, else kEtcdRejected.
Error decodeError(int httpStatus, std::string_view body);

}  // namespace gateway
}  // namespace rmq::coord
