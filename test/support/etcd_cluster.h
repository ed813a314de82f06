#pragma once
// EtcdCluster: real `etcd` members (Debian etcd-server) on 127.0.0.1 for tests: free client and peer
// ports (freePort()), a temp data dir per member (its NodeProcess directory), killed when the
// cluster is destroyed. One member, or three for failover drills (kill the leader, restart it).
//
//   rmq::test::EtcdCluster etcd(3);
//   etcd.start();                          // every member answers healthy, or throws
//   EtcdOptions{.endpoints = etcd.endpoints()} ...
//   auto leader = etcd.leader();           // index of the Raft leader, as the members report it
//   etcd.kill(*leader);  ...  etcd.restart(*leader);
//
// `etcd` / `etcdctl` are looked up in PATH; missing, the constructor throws (the test FAILS) with a
// message naming the Debian packages (scripts/install-deps.sh installs them).
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "node_process.h"

namespace rmq::test {

// Full path of `name` in PATH; throws std::runtime_error naming the package when it is not there.
std::string etcdTool(const std::string& name);

class EtcdCluster {
 public:
  // Ports and directories chosen; nothing started. Members listen (client and peer URLs) on `host`:
  // 127.0.0.1, or an address of the test's namespace that brokers in other namespaces reach.
  explicit EtcdCluster(size_t members = 1, std::string host = "127.0.0.1");
  ~EtcdCluster();                             // every member killed, directories removed

  // Starts every member and waits until each reports healthy (a leader is elected); throws with the
  // members' stderr tails when that does not happen within `timeout`.
  void start(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  size_t size() const { return members_.size(); }
  std::string endpoint(size_t i) const;  // "<host>:<client port>"
  std::vector<std::string> endpoints() const;
  NodeProcess& process(size_t i) { return *members_[i].process; }

  void kill(size_t i);  // SIGKILL
  // Starts a stopped member again on its data dir (it rejoins the cluster) and waits until healthy.
  bool restart(size_t i, std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // `etcdctl endpoint health` of member i (a bounded child process: about 2 s at most).
  bool healthy(size_t i);
  // The member that says it is the Raft leader; nullopt when none of the running ones does.
  std::optional<size_t> leader();

 private:
  struct Member {
    std::string name;
    uint16_t clientPort = 0;
    uint16_t peerPort = 0;
    std::unique_ptr<NodeProcess> process;
  };
  RunResult etcdctl(size_t i, std::vector<std::string> args);

  std::string etcdctlPath_;
  std::string host_;
  std::vector<Member> members_;
};

}  // namespace rmq::test
