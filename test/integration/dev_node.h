#pragma once
// DevNode: one `rmqnode --role=namesrv,master` (dev mode) on 127.0.0.1 with free ports, its
// store and logs in its NodeProcess directory; start() returns once the broker is registered
// with the name server (TBW102 routable when auto-creation is on), so sends and routes work at once. Defaults suit the client tests:
// SQL92 filtering on, every delay level 1 s, 64 MiB commit-log files.
//
//   DevNode node;                                         // or DevNode node({.extraStore = "..."});
//   REQUIRE(node.start());
//   TestClient c; c.call(node.brokerAddr, sendRequest({.topic = "T"}));
//   Producer p(...node.clientConfig()...);  node.restart();  node.brokerLog();
#include <cstdint>
#include <string>

#include "client/client_config.h"
#include "node_process.h"

namespace rmq::test {

struct DevNodeSpec {
  std::string extraBroker;     // more [broker] TOML lines
  std::string extraStore;      // more [store] TOML lines
  bool propertyFilter = true;  // enablePropertyFilter (SQL92 subscriptions)
  std::string delayLevels = "1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s";  // messageDelayLevel
  bool http = false;           // serve HTTP (/metrics, /readyz, console) on a free port (httpPort); else off
  std::string tls;             // lines of a [tls] TOML table ("server.mode" = "enforcing", ...)
  net::TlsContextPtr checkTls;  // start() checks the registration through TLS with this (enforcing nodes)
  bool grpc = false;           // serve the 5.x gRPC port on a free port (grpcPort); else grpcServerPort = 0
};

class DevNode {
 public:
  explicit DevNode(DevNodeSpec spec = {});
  // Spawns the node and waits until its ports accept and the name server lists the broker; false
  // (with the node's output printed) when it does not come up.
  bool start();
  // Stops the node (SIGTERM; SIGKILL after 30 s; nothing when it is not running) and start()s it
  // again: returns once the broker is registered anew. The broker's ports open before its first
  // registration, so a send right after NodeProcess::restart() can find no route.
  bool restart();
  client::ClientConfig clientConfig() const;
  // Creates `topic` with `queues` read/write queues on the broker and waits until it is routable.
  bool createTopic(const std::string& topic, int queues);
  // Waits (up to 10 s) until the name server routes `topic`: after a restart the broker registers
  // its topics shortly after its ports open.
  bool waitRouted(const std::string& topic);
  // Before start(): replaces `line` of the node's TOML (REQUIREd present) by `replacement`, for a
  // key the fixture itself sets (e.g. "mappedFileSizeCommitLog = 67108864").
  void replaceConfigLine(const std::string& line, const std::string& replacement);
  std::string brokerLog() const { return proc.log("broker.log"); }

  NodeProcess proc;
  uint16_t nsPort = 0;
  uint16_t brokerPort = 0;
  uint16_t httpPort = 0;  // 0 unless spec.http
  uint16_t grpcPort = 0;  // 0 unless spec.grpc
  std::string namesrvAddr;
  std::string brokerAddr;
  net::TlsContextPtr checkTls;
};

// A topic/group name unique to this process and call.
std::string uniqueName(const std::string& prefix);

}  // namespace rmq::test
