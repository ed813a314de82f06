#pragma once
// ReplCluster: a name server, a master and a slave of one brokerName, each its own real `rmqnode`
// process on 127.0.0.1 (the shape of RocketMQ's 1m-1s deployment), for the replication drills
// (repl_*_test.cpp). The slave learns its master's HA address from the name server.
//
//   ReplCluster c({.masterRole = "SYNC_MASTER"});
//   REQUIRE(c.startAll("T"));  // = startNamesrv(), startMaster(), createTopic("T"), startSlave()
//   ... c.master / c.slave are NodeProcess (kill(), restart(), pid() for SIGSTOP) ...
//   c.maxPhyOffset(c.masterAddr()), c.waitCaughtUp(), c.commitLogDiff()
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <sys/types.h>

#include "broker_requests.h"
#include "test_client.h"
#include "node_process.h"

namespace rmq::test {

struct ReplSpec {
  std::string masterRole = "SYNC_MASTER";  // SYNC_MASTER | ASYNC_MASTER
  int64_t commitLogFileSize = 64 << 20;    // mappedFileSizeCommitLog of both brokers
  std::string extraStore;                  // more [store] TOML lines for both brokers
  std::string extraBroker;                 // more [broker] TOML lines for both brokers
  bool masterHttp = false;                 // the master serves HTTP (/metrics) on masterHttpPort
};

class ReplCluster {
 public:
  explicit ReplCluster(ReplSpec spec);

  bool startNamesrv();
  bool startMaster();
  bool startSlave();
  // The usual order: name server, master, `topic` created on the master, slave.
  bool startAll(const std::string& topic);
  // UPDATE_AND_CREATE_TOPIC on the master (8 queues) so a slave started afterwards syncs it.
  bool createTopic(const std::string& topic);

  std::string namesrvAddr() const { return "127.0.0.1:" + std::to_string(nsPort); }
  std::string masterAddr() const { return "127.0.0.1:" + std::to_string(masterPort); }
  std::string slaveAddr() const { return "127.0.0.1:" + std::to_string(slavePort); }

  // One value of a broker's GET_BROKER_RUNTIME_INFO table (e.g. the master's "haSlaves"); nullopt
  // when it does not answer or has no such key.
  std::optional<std::string> runtimeValue(const std::string& brokerAddr, const std::string& key);
  // commitLogMaxOffset of a broker's GET_BROKER_RUNTIME_INFO; nullopt when it does not answer.
  std::optional<int64_t> maxPhyOffset(const std::string& brokerAddr);
  // Polls the master's "haSlaves" until a slave connection has reported its offset (ack >= 0).
  bool waitSlaveReported(std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // Master's commitLogMaxOffset - slave's, when both answer.
  std::optional<int64_t> lag();
  // Polls until the slave's max offset equals the master's (and is >= minOffset).
  bool waitCaughtUp(int64_t minOffset, std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // Empty when both commit logs hold the same bytes in [from, to) (the written parts: to = max
  // offset); else a description of the first difference. Reads both stores' files (call when quiet).
  std::string commitLogDiff(int64_t from, int64_t to) const;

  ReplSpec spec;
  NodeProcess ns;
  NodeProcess master;
  NodeProcess slave;
  uint16_t nsPort = 0;
  uint16_t masterPort = 0;
  uint16_t slavePort = 0;
  uint16_t masterHttpPort = 0;  // 0 unless spec.masterHttp
  TestClient client;

 private:
  std::string brokerConfig(const NodeProcess& node, uint16_t port, int brokerId, const std::string& role,
                           uint16_t httpPort = 0) const;
  static bool startNode(NodeProcess& node, const char* what);
};

// After kill(pid, SIGSTOP): polls /proc/PID/task/*/stat until every thread of the process is
// stopped (state T); false on timeout or when the process is gone.
bool waitAllThreadsStopped(pid_t pid, std::chrono::milliseconds timeout);

// Bytes [from, to) of a store's commit log (files named by their start offset); shorter when files
// are missing or short.
std::string readCommitLog(const std::string& commitLogDir, int64_t fileSize, int64_t from, int64_t to);
// Empty when two commit logs hold the same bytes in [from, to); else the first difference (or which
// one is short). Names the two sides `nameA` / `nameB` in the message.
std::string commitLogDiff(const std::string& dirA, const std::string& dirB, int64_t fileSize, int64_t from, int64_t to,
                          const std::string& nameA = "master", const std::string& nameB = "slave");

}  // namespace rmq::test
