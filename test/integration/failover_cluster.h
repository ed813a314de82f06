#pragma once
// FailoverCluster: etcd (one member, or three), a name server and the brokers of one group with
// failoverEnable, each a real process on 127.0.0.1 (failover_*_test.cpp). A broker can be placed
// elsewhere (FailoverSpec::placement: run through `ip netns exec NS`, reached on its namespace's
// address; the others then listen on an address of the test's namespace: FailoverSpec::host).
//
//   FailoverCluster c({.mode = "SYNC_MASTER"});
//   REQUIRE(c.startAll("T"));   // etcd, name server, broker 1 (starts as master), topic T, broker 2
//   c.waitMaster(1, ...) / c.routeMaster("T") / c.broker(1).kill() ...
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "etcd_cluster.h"
#include "node_process.h"
#include "test_client.h"

namespace rmq::test {

struct BrokerPlacement {
  std::vector<std::string> launcher;  // the broker runs as `launcher... rmqnode ...` (netns_link.h)
  std::string ip;                     // its brokerIP1 / brokerIP2: where everyone else reaches it
};

struct FailoverSpec {
  std::string mode = "SYNC_MASTER";  // the group's brokerRole when master
  int brokers = 2;                   // broker ids 1..brokers; broker 1 starts as master
  int etcdMembers = 1;
  std::string extraBroker;           // more [broker] lines for every broker
  // Where etcd and the name server listen and the brokers without a placement advertise
  // themselves (they listen on every address).
  std::string host = "127.0.0.1";
  std::map<int, BrokerPlacement> placement;  // broker id -> how it runs and its address
};

class FailoverCluster {
 public:
  explicit FailoverCluster(FailoverSpec spec);

  bool startEtcd();
  bool startNamesrv();
  bool startBroker(int id);  // 1-based
  // etcd, name server, broker 1, wait until it is master, `topic` created on it, the others.
  bool startAll(const std::string& topic);
  bool createTopic(const std::string& addr, const std::string& topic);

  NodeProcess& broker(int id) { return *brokers_[id - 1]; }
  std::string addr(int id) const { return ips_[id - 1] + ":" + std::to_string(ports_[id - 1]); }
  std::string namesrvAddr() const { return spec.host + ":" + std::to_string(nsPort); }

  std::optional<std::string> runtimeValue(const std::string& brokerAddr, const std::string& key);
  // The same through `via` (e.g. a client made on a thread inside a broker's network namespace).
  static std::optional<std::string> runtimeValue(TestClient& via, const std::string& brokerAddr, const std::string& key);
  // The master address the name server's route of `topic` lists under brokerId 0 (nullopt: none).
  std::optional<std::string> routeMaster(const std::string& topic);
  // Number of brokerId-0 entries for the group in the route (must never exceed 1).
  bool waitMaster(int id, std::chrono::milliseconds timeout);      // runtime info says master
  bool waitInSync(int masterId, int slaveId, std::chrono::milliseconds timeout);
  std::optional<int64_t> maxPhyOffset(int id);

  FailoverSpec spec;
  EtcdCluster etcd;
  std::string etcdEndpoints() const;  // "host:port;host:port" as failoverEtcdEndpoints takes them
  NodeProcess ns;
  uint16_t nsPort = 0;
  TestClient client;

 private:
  std::vector<std::unique_ptr<NodeProcess>> brokers_;
  std::vector<uint16_t> ports_;
  std::vector<std::string> ips_;
};

}  // namespace rmq::test
