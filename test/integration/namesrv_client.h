#pragma once
// Name-server side of the integration fixtures: a name server process (Namesrv) and the
// REGISTER_BROKER requests a test sends in a broker's place (over a TestClient).
#include <cstdint>
#include <initializer_list>
#include <string>

#include "net/remoting_command.h"
#include "node_config.h"
#include "node_process.h"
#include "test_client.h"

namespace rmq::test {

// RegisterBrokerBody JSON as a 4.9.7 broker sends it; topics are "name:queues[:perm[:sysFlag]]".
// epoch > 0 adds dataVersion.stateVersion (a failover broker's group epoch).
std::string registerBody(int64_t counter, std::initializer_list<std::string> topics, int64_t epoch = 0);
// REGISTER_BROKER request (uncompressed JSON body, bodyCrc32 set).
net::RemotingCommand registerRequest(const std::string& cluster, const std::string& name, int64_t id,
                                     const std::string& addr, const std::string& body);

// A name server process on a free loopback port (`extra`: more TOML lines); call node.start().
struct Namesrv {
  NodeProcess node;
  uint16_t port = freePort();
  std::string addr = "127.0.0.1:" + std::to_string(port);

  explicit Namesrv(const std::string& extra = "") {
    node.writeFile("ns.toml", namesrvToml(node, port, extra));
    node.setArgs({"--role=namesrv", "-c", node.path("ns.toml")});
    node.waitForPorts({port});
  }
};

}  // namespace rmq::test
