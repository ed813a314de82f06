#pragma once
// EtcdClient: etcd v3 over its HTTP/JSON gateway (README.md says why), on our Asio coroutines.
//
//   coord::EtcdClient etcd(io.get_executor(), {.endpoints = {"127.0.0.1:2379", "127.0.0.1:22379"}});
//   auto lease = co_await etcd.leaseGrant(10);
//   std::vector<coord::Compare> ifFree{{.key = "/rmq/b/master", .target = coord::Compare::Target::Create}};
//   std::vector<coord::TxnOp> claim{{.key = "/rmq/b/master", .value = "10.0.0.1:10911", .lease = lease->id}};
//   auto won = co_await etcd.txn(ifFree, claim);                  // create revision 0 = key absent
//   auto ttl = co_await etcd.leaseKeepAlive(lease->id);            // every ttl/3 seconds
//   if (!ttl && coord::isLeaseGone(ttl.error())) { /* our claim is gone */ }
//
// Threads: every call is a coroutine that must be awaited on the client's executor (a single-threaded
// io_context or a strand); it never blocks the thread. The client must outlive its calls (close(),
// then let them end).
//
// Endpoints and failures: a call goes to the current endpoint; a connection error, a timeout
// (`requestTimeout` per attempt: connect + request + answer) or a 5xx (etcd: no leader, timed out)
// moves it to the next endpoint, at most one round over the list; the endpoint that answered stays
// current. After a failed round: kEtcdUnavailable, the message naming each endpoint and its cause.
// An error etcd answered (4xx) is kEtcdRejected, or kLeaseNotFound for a lease that does not exist;
// those are not retried elsewhere. A put or txn that timed out may still have been applied by etcd;
// retried on the next endpoint it may apply twice (guard with a txn compare where that matters).
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "coord/etcd_types.h"

namespace rmq::coord {

class GatewayConnection;

struct EtcdOptions {
  std::vector<std::string> endpoints;               // "host:port", tried in order; a failed one moves to the next
  std::chrono::milliseconds requestTimeout{1000};   // per attempt (connect + request + answer)
  size_t idleConnectionsPerEndpoint = 4;            // kept for reuse (HTTP/1.1 keep-alive)
};

class EtcdClient {
 public:
  EtcdClient(asio::any_io_executor ex, EtcdOptions opts);
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  // The values of `key`, or of every key starting with it (`prefix`; "" = all keys), in key order.
  asio::awaitable<Result<std::vector<KeyValue>>> range(std::string key, bool prefix = false);
  // -> the store's revision after the put (the key's new mod revision).
  asio::awaitable<Result<int64_t>> put(std::string key, std::string value, int64_t lease = 0);
  // -> how many keys were deleted.
  asio::awaitable<Result<int64_t>> remove(std::string key, bool prefix = false);
  // All compares hold -> `success` runs, else `failure`; atomically.
  asio::awaitable<Result<TxnResult>> txn(std::vector<Compare> compares, std::vector<TxnOp> success,
                                         std::vector<TxnOp> failure = {});
  asio::awaitable<Result<LeaseGrant>> leaseGrant(int64_t ttlSeconds);
  // Renews once (the gateway's keepalive stream, one request); -> the TTL etcd granted (seconds). A
  // lease that no longer exists (expired, revoked) is an error with code kLeaseNotFound
  // (isLeaseGone()).
  asio::awaitable<Result<int64_t>> leaseKeepAlive(int64_t id);
  // Revokes the lease and deletes its keys; kLeaseNotFound when it no longer exists.
  asio::awaitable<Result<void>> leaseRevoke(int64_t id);
  // Seconds the lease has left; kLeaseNotFound when it no longer exists.
  asio::awaitable<Result<int64_t>> leaseTimeToLive(int64_t id);

  // Waits until `key` (or a key under the prefix) changes at or after `fromRevision`: true at the
  // first change (one already made since fromRevision counts at once; so does a watch etcd cancels,
  // e.g. a compacted revision: read again), false when `maxWait` passed without one. One etcd watch
  // on the current endpoint over its own connection, closed afterwards; an error moves the current
  // endpoint on (the caller's next read then tries the others).
  asio::awaitable<Result<bool>> waitForChange(std::string key, int64_t fromRevision, std::chrono::milliseconds maxWait,
                                              bool prefix = false);

  // The endpoint the next call goes to first ("" when there is none).
  const std::string& currentEndpoint() const;
  // Closes every connection: calls in progress and later calls fail with kEtcdUnavailable
  // ("client closed").
  void close();

 private:
  // One POST with the failover over endpoints: the body of a 2xx answer, or the error.
  asio::awaitable<Result<std::string>> call(const char* path, std::string body);
  asio::awaitable<Result<std::string>> attempt(size_t endpoint, const char* path, const std::string& body);
  std::unique_ptr<GatewayConnection> takeConnection(size_t endpoint);
  void keepConnection(size_t endpoint, std::unique_ptr<GatewayConnection> conn);

  asio::any_io_executor ex_;
  EtcdOptions opts_;
  size_t current_ = 0;
  bool closed_ = false;
  std::vector<std::vector<std::unique_ptr<GatewayConnection>>> idle_;  // per endpoint
  std::vector<GatewayConnection*> busy_;                               // owned by the calls using them
};

}  // namespace rmq::coord
