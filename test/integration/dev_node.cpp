#include "dev_node.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>

#include <doctest/doctest.h>

#include "broker_requests.h"
#include "client/request_headers.h"
#include "common/request_code.h"
#include "node_config.h"
#include "test_client.h"

namespace rmq::test {

DevNode::DevNode(DevNodeSpec spec) {
  nsPort = freePort();
  brokerPort = freeBrokerPort();
  if (spec.http) httpPort = freePort();
  if (spec.grpc) grpcPort = freePort();
  namesrvAddr = "127.0.0.1:" + std::to_string(nsPort);
  brokerAddr = "127.0.0.1:" + std::to_string(brokerPort);
  BrokerToml broker;
  broker.port = brokerPort;
  broker.namesrvAddr = namesrvAddr;
  broker.extraBroker = std::string("enablePropertyFilter = ") + (spec.propertyFilter ? "true" : "false") + "\n" +
                       // Always explicit: a dev node would otherwise take 8081 (parallel tests).
                       "grpcServerPort = " + std::to_string(grpcPort) + "\n" + spec.extraBroker;
  broker.extraStore = "messageDelayLevel = \"" + spec.delayLevels + "\"\n" + spec.extraStore;
  std::string tls = spec.tls.empty() ? "" : "[tls]\n" + spec.tls + "\n";
  checkTls = spec.checkTls;
  proc.writeFile("node.toml", namesrvToml(proc, nsPort, "", httpPort) + brokerToml(proc, broker) + tls);
  proc.setArgs({"--role=namesrv,master", "-c", proc.path("node.toml")});
  std::vector<uint16_t> ports{nsPort, brokerPort};
  if (httpPort != 0) ports.push_back(httpPort);
  if (grpcPort != 0) ports.push_back(grpcPort);
  proc.waitForPorts(ports);
}

bool DevNode::start() {
  bool up = proc.start(std::chrono::seconds(30));
  if (up) {  // registered: the name server's cluster info lists the broker (and its topics are routable)
    net::ClientOptions options;
    options.tls = checkTls;
    TestClient c(options);
    up = eventually(
        [&] {
          auto info = c.call(namesrvAddr, RequestCode::GET_BROKER_CLUSTER_INFO);
          return info.ok() && info->code == 0 && bodyOf(*info).find(brokerAddr) != std::string::npos;
        },
        std::chrono::seconds(15));
  }
  if (!up) std::fprintf(stderr, "rmqnode did not start:\n%s\n%s\n", proc.stdoutText().c_str(), proc.stderrText().c_str());
  return up;
}

bool DevNode::restart() {
  proc.stop(std::chrono::seconds(30));
  return start();
}

client::ClientConfig DevNode::clientConfig() const {
  client::ClientConfig c;
  c.namesrvAddr = namesrvAddr;
  c.clientIp = "127.0.0.1";
  return c;
}

void DevNode::replaceConfigLine(const std::string& line, const std::string& replacement) {
  std::string toml = proc.readFile("node.toml");
  auto pos = toml.find(line);
  REQUIRE_MESSAGE(pos != std::string::npos, "no line '" << line << "' in node.toml");
  toml.replace(pos, line.size(), replacement);
  proc.writeFile("node.toml", toml);
}

bool DevNode::createTopic(const std::string& topic, int queues) {
  TestClient c;
  if (codeOf(c.call(brokerAddr, createTopicRequest(topic, queues))) != 0) return false;
  return waitRouted(topic);
}

bool DevNode::waitRouted(const std::string& topic) {
  TestClient c;
  return eventually([&] { return codeOf(c.call(namesrvAddr, client::makeRouteRequest(topic))) == 0; },
                    std::chrono::seconds(10));
}

std::string uniqueName(const std::string& prefix) {
  static std::atomic<int> n{0};
  return prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(n++);
}

}  // namespace rmq::test
