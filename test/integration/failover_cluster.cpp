#include "failover_cluster.h"

#include <cstdio>

#include "broker_calls.h"
#include "client/route.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "node_config.h"

namespace rmq::test {

bool FailoverCluster::startEtcd() {
  try {
    etcd.start();
    return true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "etcd did not start: %s\n", e.what());
    return false;
  }
}

std::string FailoverCluster::etcdEndpoints() const {
  std::string out;
  for (auto& e : etcd.endpoints()) out += (out.empty() ? "" : ";") + e;
  return out;
}

FailoverCluster::FailoverCluster(FailoverSpec s)
    : spec(std::move(s)), etcd(static_cast<size_t>(spec.etcdMembers), spec.host) {
  nsPort = freePort();
  ns.writeFile("ns.toml", namesrvToml(ns, nsPort, "", 0, spec.host));
  ns.setArgs({"--role=namesrv", "-c", ns.path("ns.toml")});
  ns.waitForPorts({nsPort}, spec.host);
  for (int id = 1; id <= spec.brokers; ++id) {
    brokers_.push_back(std::make_unique<NodeProcess>());
    ports_.push_back(freeBrokerPort());
    auto placed = spec.placement.find(id);
    ips_.push_back(placed == spec.placement.end() ? spec.host : placed->second.ip);
    auto& node = *brokers_.back();
    if (placed != spec.placement.end()) node.setLauncher(placed->second.launcher);
    const std::string failoverLines = "failoverEnable = true\nfailoverEtcdEndpoints = \"" + etcdEndpoints() +
                                      "\"\nbrokerElectionPriority = " + std::to_string(id) + "\n" + spec.extraBroker;
    node.writeFile("broker.toml", logDirToml(node) + brokerToml(node, {.port = ports_.back(), .namesrvAddr = namesrvAddr(),
                                                                  .cluster = "FoCluster", .name = "broker-f",
                                                                  .id = id, .role = spec.mode,
                                                                  .extraBroker = failoverLines, .ip = ips_.back()}));
    node.setArgs({id == 1 ? "--role=master" : "--role=slave", "-c", node.path("broker.toml")});
    node.waitForPorts({ports_.back()}, ips_.back());
  }
}

bool FailoverCluster::startNamesrv() {
  if (ns.start(std::chrono::seconds(30))) return true;
  std::fprintf(stderr, "name server did not start:\n%s\n", ns.stderrText().c_str());
  return false;
}

bool FailoverCluster::startBroker(int id) {
  if (broker(id).start(std::chrono::seconds(30))) return true;
  std::fprintf(stderr, "broker %d did not start:\n%s\n", id, broker(id).stderrText().c_str());
  return false;
}

bool FailoverCluster::startAll(const std::string& topic) {
  if (!startEtcd() || !startNamesrv() || !startBroker(1)) return false;
  if (!waitMaster(1, std::chrono::seconds(20))) return false;
  if (!createTopic(addr(1), topic)) return false;
  for (int id = 2; id <= spec.brokers; ++id)
    if (!startBroker(id)) return false;
  return true;
}

bool FailoverCluster::createTopic(const std::string& brokerAddr, const std::string& topic) {
  test::createTopic(client, brokerAddr, topic, 4);  // REQUIREs SUCCESS
  return true;
}

std::optional<std::string> FailoverCluster::runtimeValue(const std::string& brokerAddr, const std::string& key) {
  return runtimeValue(client, brokerAddr, key);
}

std::optional<std::string> FailoverCluster::runtimeValue(TestClient& via, const std::string& brokerAddr,
                                                         const std::string& key) {
  return brokerRuntimeValue(via, brokerAddr, key, std::chrono::seconds(3));
}

std::optional<std::string> FailoverCluster::routeMaster(const std::string& topic) {
  auto r = client.call(namesrvAddr(), RequestCode::GET_ROUTEINFO_BY_TOPIC, {{"topic", topic}});
  if (!r.ok() || r->code != ResponseCode::SUCCESS) return std::nullopt;
  auto route = client::parseTopicRouteData(r->body);
  if (!route.ok()) return std::nullopt;
  for (auto& b : route->brokerDatas)
    if (b.brokerName == "broker-f")
      if (auto* m = b.masterAddr()) return *m;
  return std::nullopt;
}

bool FailoverCluster::waitMaster(int id, std::chrono::milliseconds timeout) {
  return eventually([&] { return runtimeValue(addr(id), "failoverRole") == std::optional<std::string>("master"); },
                    timeout);
}

bool FailoverCluster::waitInSync(int masterId, int slaveId, std::chrono::milliseconds timeout) {
  return eventually(
      [&] {
        auto set = runtimeValue(addr(masterId), "failoverInSync");
        return set && ("," + *set + ",").find("," + std::to_string(slaveId) + ",") != std::string::npos;
      },
      timeout);
}

std::optional<int64_t> FailoverCluster::maxPhyOffset(int id) {
  auto v = runtimeValue(addr(id), "commitLogMaxOffset");
  if (!v) return std::nullopt;
  return std::stoll(*v);
}

}  // namespace rmq::test
