#pragma once
// BrokerMessaging: the 5.x gRPC endpoint of a broker (grpcServerPort > 0). Owns the GrpcServer
// (TLS and plaintext on one port: the broker's tls.server.* certificate when configured, else a
// self-signed one made at start), the MessagingService with its MessagingDeps filled from the
// BrokerContext, and the per-RPC counters of /metrics.
//
// How the access point learns every master's gRPC port (QueryRoute): it asks the master once over
// remoting, GET_BROKER_CONFIG (26), whose properties carry grpcServerPort, and caches the answer
// (30 s; 5 s when the broker could not be asked or serves none). This works with Java name servers
// and needs no new registration field; a broker asks nobody about itself.
// Lifecycle: start() after the remoting servers, stop() before the IoPool stops (blocking: not on
// a network thread).
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "grpc/grpc_server.h"
#include "metrics/text_writer.h"
#include "net/remoting_client.h"
#include "net/tls_context.h"
#include "roles/broker/messaging/messaging_service.h"

namespace rmq::broker {
struct BrokerContext;
class SendProcessor;
class NamesrvRegistrar;
}  // namespace rmq::broker

namespace rmq::broker::messaging {

class BrokerMessaging {
 public:
  BrokerMessaging(BrokerContext& ctx, SendProcessor& send, NamesrvRegistrar& registrar, net::TlsContextPtr clientTls,
                  net::TlsServerSettings serverTls);
  ~BrokerMessaging();
  Result<void> start();
  void stop();
  uint16_t port() const;
  void writeMetrics(metrics::TextWriter& w, const metrics::LabelList& base) const;
  MessagingService& service() { return *service_; }

 private:
  struct RpcCounters {
    std::atomic<uint64_t> calls{0}, errors{0};
  };
  MessagingDeps makeDeps();
  asio::awaitable<Result<client::TopicRouteData>> queryRoute(std::string topic);
  asio::awaitable<int> grpcPortOf(std::string addr);
  void observe(std::string_view path, grpc::StatusCode code);

  BrokerContext& ctx_;
  SendProcessor& send_;
  NamesrvRegistrar& registrar_;
  net::TlsServerSettings serverTls_;
  net::RemotingClient client_;
  std::unique_ptr<MessagingService> service_;
  std::unique_ptr<grpc::GrpcServer> server_;
  std::map<std::string, RpcCounters, std::less<>> counters_;  // by RPC name; filled before start()

  struct CachedPort {
    int port = 0;
    std::chrono::steady_clock::time_point until;
  };
  std::mutex portsMu_;
  std::map<std::string, CachedPort> ports_;
};

}  // namespace rmq::broker::messaging
