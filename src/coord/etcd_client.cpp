#include "coord/etcd_client.h"

#include <algorithm>
#include <optional>

#include "coord/gateway_connection.h"
#include "coord/gateway_json.h"

namespace rmq::coord {

EtcdClient::EtcdClient(asio::any_io_executor ex, EtcdOptions opts)
    : ex_(std::move(ex)), opts_(std::move(opts)), idle_(opts_.endpoints.size()) {}

EtcdClient::~EtcdClient() { close(); }

const std::string& EtcdClient::currentEndpoint() const {
  static const std::string none;
  return opts_.endpoints.empty() ? none : opts_.endpoints[current_];
}

void EtcdClient::close() {
  closed_ = true;
  for (auto* conn : busy_) conn->close();
  for (auto& pool : idle_) pool.clear();
}

std::unique_ptr<GatewayConnection> EtcdClient::takeConnection(size_t endpoint) {
  auto& pool = idle_[endpoint];
  if (!pool.empty()) {
    auto conn = std::move(pool.back());
    pool.pop_back();
    return conn;
  }
  return std::make_unique<GatewayConnection>(ex_, opts_.endpoints[endpoint]);
}

void EtcdClient::keepConnection(size_t endpoint, std::unique_ptr<GatewayConnection> conn) {
  if (closed_ || !conn->reusable() || idle_[endpoint].size() >= opts_.idleConnectionsPerEndpoint) return;
  idle_[endpoint].push_back(std::move(conn));
}

namespace {
// Listed while in use so close() can end the call; unlisted however the frame ends.
struct BusyMark {
  std::vector<GatewayConnection*>& busy;
  GatewayConnection* conn;
  BusyMark(std::vector<GatewayConnection*>& b, GatewayConnection* c) : busy(b), conn(c) { busy.push_back(c); }
  ~BusyMark() { std::erase(busy, conn); }
};
}  // namespace

asio::awaitable<Result<std::string>> EtcdClient::attempt(size_t endpoint, const char* path, const std::string& body) {
  auto conn = takeConnection(endpoint);
  BusyMark mark(busy_, conn.get());
  auto answer = co_await conn->post(path, body, opts_.requestTimeout);
  if (!answer) co_return answer.error();
  keepConnection(endpoint, std::move(conn));
  const int status = answer->status;
  if (status >= 200 && status < 300) co_return std::move(answer->body);
  auto error = gateway::decodeError(status, answer->body);
  if (status >= 500) error.code = kEtcdUnavailable;  // no leader, timed out: another member may do
  error.message = "etcd " + opts_.endpoints[endpoint] + ": " + error.message;
  co_return error;
}

asio::awaitable<Result<std::string>> EtcdClient::call(const char* path, std::string body) {
  if (opts_.endpoints.empty()) co_return Error{kEtcdUnavailable, "etcd: no endpoints configured"};
  std::string causes;
  for (size_t i = 0; i < opts_.endpoints.size(); ++i) {
    if (closed_) co_return Error{kEtcdUnavailable, "etcd: client closed"};
    const size_t endpoint = (current_ + i) % opts_.endpoints.size();
    auto r = co_await attempt(endpoint, path, body);
    if (r || r.error().code != kEtcdUnavailable) {
      current_ = endpoint;  // it answered: the next call starts there
      co_return r;
    }
    causes += causes.empty() ? "" : "; ";
    causes += r.error().message;
  }
  co_return Error{kEtcdUnavailable, "etcd: no endpoint answered " + std::string(path) + ": " + causes};
}

asio::awaitable<Result<bool>> EtcdClient::waitForChange(std::string key, int64_t fromRevision,
                                                         std::chrono::milliseconds maxWait, bool prefix) {
  if (opts_.endpoints.empty()) co_return Error{kEtcdUnavailable, "etcd: no endpoints configured"};
  if (closed_) co_return Error{kEtcdUnavailable, "etcd: client closed"};
  const size_t endpoint = current_;
  GatewayConnection conn(ex_, opts_.endpoints[endpoint]);
  BusyMark mark(busy_, &conn);
  std::optional<Error> failed;
  auto onMessage = [&failed](std::string_view text) {
    auto m = gateway::decodeWatchMessage(text);
    if (!m) failed = m.error();
    return !m || m->events > 0 || m->canceled || m->compactRevision > 0;
  };
  auto request = gateway::watchRequest(key, prefix, fromRevision);
  auto r = co_await conn.stream("/v3/watch", request, maxWait, std::move(onMessage));
  if (!r || failed) {
    if (closed_) co_return Error{kEtcdUnavailable, "etcd: client closed"};
    current_ = (endpoint + 1) % opts_.endpoints.size();
    co_return failed ? *failed : r.error();
  }
  co_return *r;
}

asio::awaitable<Result<std::vector<KeyValue>>> EtcdClient::range(std::string key, bool prefix) {
  auto request = gateway::rangeRequest(key, prefix);
  auto body = co_await call("/v3/kv/range", std::move(request));
  if (!body) co_return body.error();
  co_return gateway::decodeRange(*body);
}

asio::awaitable<Result<int64_t>> EtcdClient::put(std::string key, std::string value, int64_t lease) {
  auto request = gateway::putRequest(key, value, lease);
  auto body = co_await call("/v3/kv/put", std::move(request));
  if (!body) co_return body.error();
  co_return gateway::decodeRevision(*body);
}

asio::awaitable<Result<int64_t>> EtcdClient::remove(std::string key, bool prefix) {
  auto request = gateway::deleteRequest(key, prefix);
  auto body = co_await call("/v3/kv/deleterange", std::move(request));
  if (!body) co_return body.error();
  co_return gateway::decodeDeleted(*body);
}

asio::awaitable<Result<TxnResult>> EtcdClient::txn(std::vector<Compare> compares, std::vector<TxnOp> success,
                                                   std::vector<TxnOp> failure) {
  auto request = gateway::txnRequest(compares, success, failure);
  auto body = co_await call("/v3/kv/txn", std::move(request));
  if (!body) co_return body.error();
  co_return gateway::decodeTxn(*body);
}

asio::awaitable<Result<LeaseGrant>> EtcdClient::leaseGrant(int64_t ttlSeconds) {
  auto request = gateway::leaseGrantRequest(ttlSeconds);
  auto body = co_await call("/v3/lease/grant", std::move(request));
  if (!body) co_return body.error();
  co_return gateway::decodeLeaseGrant(*body);
}

asio::awaitable<Result<int64_t>> EtcdClient::leaseKeepAlive(int64_t id) {
  // A streaming RPC through the gateway: one request message, one answer message, then the stream
  // ends with the request body (README.md).
  auto request = gateway::leaseIdRequest(id);
  auto body = co_await call("/v3/lease/keepalive", std::move(request));
  if (!body) co_return body.error();
  co_return gateway::decodeKeepAlive(*body, id);
}

asio::awaitable<Result<void>> EtcdClient::leaseRevoke(int64_t id) {
  auto request = gateway::leaseIdRequest(id);
  auto body = co_await call("/v3/lease/revoke", std::move(request));
  if (!body) co_return body.error();
  co_return Result<void>();
}

asio::awaitable<Result<int64_t>> EtcdClient::leaseTimeToLive(int64_t id) {
  auto request = gateway::leaseIdRequest(id);
  auto body = co_await call("/v3/lease/timetolive", std::move(request));
  if (!body) co_return body.error();
  co_return gateway::decodeTimeToLive(*body, id);
}

}  // namespace rmq::coord
