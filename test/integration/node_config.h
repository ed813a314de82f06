#pragma once
// TOML configs of test nodes, every path inside the node's NodeProcess directory (logs in
// <dir>/logs, the store in <dir>/store, name server files in <dir>/namesrv). A dev node is
// namesrvToml + brokerToml; a broker process alone is logDirToml + brokerToml.
#include <cstdint>
#include <string>

#include "node_process.h"

namespace rmq::test {

// logDir = "<dir>/logs" and httpListenPort = httpPort (top-level keys: they go before any table).
// Always explicit, so a dev node never takes the default 8080 and parallel tests never collide.
std::string logDirToml(const NodeProcess& node, uint16_t httpPort = 0);

// logDirToml, then the [namesrv] table: listen on host:port (127.0.0.1 unless a test's own network
// namespace link needs another address), KV config and properties under <dir>/namesrv, plus `extra` lines.
std::string namesrvToml(const NodeProcess& node, uint16_t port, const std::string& extra = "", uint16_t httpPort = 0,
                        const std::string& host = "127.0.0.1");

struct BrokerToml {
  uint16_t port = 0;            // listenPort (HA listens on port + 1)
  std::string namesrvAddr;      // "" = none (a dev node registers with its own name server)
  std::string cluster = "DefaultCluster";
  std::string name = "broker-a";
  int64_t id = 0;               // 0 master, > 0 slave
  std::string role;             // brokerRole: ASYNC_MASTER (""), SYNC_MASTER, SLAVE
  int64_t commitLogFileSize = 64 << 20;
  std::string extraBroker;      // more [broker] lines
  std::string extraStore;       // more [store] lines
  std::string ip = "127.0.0.1"; // brokerIP1 and brokerIP2 (the broker listens on every address)
};

// The [broker] and [store] tables (brokerIP1/2 = ip, store under <dir>/store).
std::string brokerToml(const NodeProcess& node, const BrokerToml& b);

}  // namespace rmq::test
