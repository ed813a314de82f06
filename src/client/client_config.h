#pragma once
// Settings every client (producer, consumers, admin) shares, and the client id (§12.1).
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/local_address.h"
#include "net/tls_context.h"

namespace rmq::client {

struct ClientConfig {
  std::string namesrvAddr;             // "host:port;host:port"; empty = $NAMESRV_ADDR
  std::string instanceName = "DEFAULT";
  std::string clientIp;                // empty = first non-loopback IPv4 (else 127.0.0.1)
  std::string unitName;
  size_t ioThreads = 1;                // network threads of this client
  std::chrono::milliseconds pollNameServerInterval{30000};
  std::chrono::milliseconds heartbeatBrokerInterval{30000};
  std::chrono::milliseconds rpcTimeout{3000};  // name server and admin calls
  // A failed send refreshes its topic's route at once (ClientInstance::refreshRouteAfterFailure),
  // at most once per this interval per topic.
  std::chrono::milliseconds routeRefreshAfterFailureInterval{200};
  // Name servers taken from the address server (no namesrvAddr, no NAMESRV_ADDR): asked again this
  // often, as Java's MQClientInstance does every 2 minutes (fetchNameServerAddr).
  std::chrono::milliseconds namesrvAddrRefreshInterval{120000};
  // Java NettyClientConfig (system properties com.rocketmq.remoting.clientAsyncSemaphoreValue /
  // clientOnewaySemaphoreValue there): at most this many asynchronous requests (sendAsync, the
  // push consumer's pulls) / oneway requests (sendOneway, oneway offset updates, END_TRANSACTION)
  // of this client in flight; more wait up to their timeout (net::RemotingClient::invokeAsync).
  int64_t clientAsyncSemaphoreValue = 65535;
  int64_t clientOnewaySemaphoreValue = 65535;
  // ACL 1.0 credentials (Java AclClientRPCHook): with an access key every request this client
  // sends carries AccessKey (+ SecurityToken) and its Signature.
  std::string accessKey;
  std::string secretKey;
  std::string securityToken;
  // Java -Dtls.enable=true: every connection (name servers, brokers) speaks TLS with this context
  // (client_tls.h makes it as Java's TlsHelper does). Null: plaintext.
  net::TlsContextPtr tls;
};

// Splits "a:9876;b:9876" (also accepts ',' and spaces); empty parts dropped.
std::vector<std::string> splitNamesrvAddr(std::string_view text);
// cfg.namesrvAddr, or $NAMESRV_ADDR when that is empty, or else (as Java's client) the list the
// address server answers when one is set in the environment (net/top_addressing.h:
// rocketmq.namesrv.domain / ROCKETMQ_NAMESRV_DOMAIN); blocks up to cfg.rpcTimeout for it. A
// ClientInstance asks the address server again every namesrvAddrRefreshInterval.
std::vector<std::string> resolveNamesrvAddr(const ClientConfig& cfg);
// The address server's URL when the name servers come from it (neither cfg.namesrvAddr nor
// $NAMESRV_ADDR set, a domain in the environment); nullopt otherwise.
std::optional<std::string> namesrvAddressServer(const ClientConfig& cfg);
// The list the address server at `url` answers now; empty (with a warning) when it fails.
std::vector<std::string> fetchNamesrvList(const std::string& url, std::chrono::milliseconds timeout);

// clientIP@instanceName[@unitName]
std::string buildClientId(const std::string& ip, const std::string& instanceName, const std::string& unitName);
// "<pid>#<nanotime>", what Java substitutes for instanceName "DEFAULT".
std::string uniqueInstanceName();

}  // namespace rmq::client
