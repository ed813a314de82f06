#include "repl_cluster.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "client/route.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "broker_calls.h"
#include "node_config.h"

namespace rmq::test {
ReplCluster::ReplCluster(ReplSpec s) : spec(std::move(s)) {
  nsPort = freePort();
  masterPort = freeBrokerPort();
  slavePort = freeBrokerPort();
  if (spec.masterHttp) masterHttpPort = freePort();
  ns.writeFile("ns.toml", namesrvToml(ns, nsPort));
  ns.setArgs({"--role=namesrv", "-c", ns.path("ns.toml")});
  ns.waitForPorts({nsPort});
  master.writeFile("broker.toml", brokerConfig(master, masterPort, 0, spec.masterRole, masterHttpPort));
  master.setArgs({"--role=master", "-c", master.path("broker.toml")});
  master.waitForPorts({masterPort, static_cast<uint16_t>(masterPort + 1)});
  slave.writeFile("broker.toml", brokerConfig(slave, slavePort, 1, "SLAVE"));
  slave.setArgs({"--role=slave", "-c", slave.path("broker.toml")});
  slave.waitForPorts({slavePort});
}

std::string ReplCluster::brokerConfig(const NodeProcess& node, uint16_t port, int brokerId, const std::string& role,
                                      uint16_t httpPort) const {
  return logDirToml(node, httpPort) + brokerToml(node, {.port = port, .namesrvAddr = namesrvAddr(), .cluster = "ReplCluster",
                                              .name = "broker-r", .id = brokerId, .role = role,
                                              .commitLogFileSize = spec.commitLogFileSize,
                                              .extraBroker = spec.extraBroker, .extraStore = spec.extraStore});
}

bool ReplCluster::startNode(NodeProcess& node, const char* what) {
  if (node.start(std::chrono::seconds(30))) return true;
  std::fprintf(stderr, "%s did not start:\n%s\n%s\n", what, node.stdoutText().c_str(), node.stderrText().c_str());
  return false;
}

bool ReplCluster::startNamesrv() { return startNode(ns, "name server"); }
bool ReplCluster::startMaster() { return startNode(master, "master"); }
bool ReplCluster::startSlave() { return startNode(slave, "slave"); }
bool ReplCluster::startAll(const std::string& topic) {
  return startNamesrv() && startMaster() && createTopic(topic) && startSlave();
}

bool ReplCluster::createTopic(const std::string& topic) {
  auto cmd = net::RemotingCommand::request(RequestCode::UPDATE_AND_CREATE_TOPIC);
  cmd.extFields.set("topic", topic);
  cmd.extFields.set("readQueueNums", int64_t{8});
  cmd.extFields.set("writeQueueNums", int64_t{8});
  cmd.extFields.set("perm", int64_t{6});
  cmd.extFields.set("topicFilterType", std::string("SINGLE_TAG"));
  cmd.extFields.set("topicSysFlag", int64_t{0});
  cmd.extFields.setBool("order", false);
  auto r = client.call(masterAddr(), std::move(cmd));
  return r.ok() && r->code == ResponseCode::SUCCESS;
}

std::optional<std::string> ReplCluster::runtimeValue(const std::string& brokerAddr, const std::string& key) {
  return brokerRuntimeValue(client, brokerAddr, key);
}

std::optional<int64_t> ReplCluster::maxPhyOffset(const std::string& brokerAddr) {
  auto v = runtimeValue(brokerAddr, "commitLogMaxOffset");
  if (!v) return std::nullopt;
  return std::stoll(*v);
}

std::optional<int64_t> ReplCluster::lag() {
  auto m = maxPhyOffset(masterAddr());
  auto s = maxPhyOffset(slaveAddr());
  if (!m || !s) return std::nullopt;
  return *m - *s;
}

bool ReplCluster::waitSlaveReported(std::chrono::milliseconds timeout) {
  return eventually(
      [&] {
        auto slaves = runtimeValue(masterAddr(), "haSlaves");  // "addr@ack;addr@ack"
        return slaves && !slaves->empty() && slaves->find("@-") == std::string::npos;
      },
      timeout);
}

bool ReplCluster::waitCaughtUp(int64_t minOffset, std::chrono::milliseconds timeout) {
  return eventually(
      [&] {
        auto m = maxPhyOffset(masterAddr());
        auto s = maxPhyOffset(slaveAddr());
        return m && s && *m >= minOffset && *m == *s;
      },
      timeout);
}

bool waitAllThreadsStopped(pid_t pid, std::chrono::milliseconds timeout) {
  namespace fs = std::filesystem;
  const fs::path tasks = "/proc/" + std::to_string(pid) + "/task";
  return eventually(
      [&] {
        std::error_code ec;
        int threads = 0;
        for (auto& t : fs::directory_iterator(tasks, ec)) {
          std::ifstream in(t.path() / "stat");
          std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
          auto close = stat.rfind(')');  // "pid (comm) S ...": the state follows the command name
          if (close == std::string::npos || close + 2 >= stat.size()) return false;
          char state = stat[close + 2];
          if (state != 'T' && state != 't') return false;
          ++threads;
        }
        return !ec && threads > 0;
      },
      timeout);
}

std::string readCommitLog(const std::string& dir, int64_t fileSize, int64_t from, int64_t to) {
  std::string out;
  for (int64_t pos = from; pos < to;) {
    int64_t fileStart = pos - pos % fileSize;
    int64_t len = std::min(fileStart + fileSize, to) - pos;
    char name[32];
    std::snprintf(name, sizeof name, "%020lld", static_cast<long long>(fileStart));
    std::ifstream in(dir + "/" + name, std::ios::binary);
    if (!in) break;
    in.seekg(pos - fileStart);
    std::string chunk(static_cast<size_t>(len), '\0');
    in.read(chunk.data(), len);
    chunk.resize(static_cast<size_t>(in.gcount()));
    out += chunk;
    if (static_cast<int64_t>(chunk.size()) < len) break;
    pos += len;
  }
  return out;
}

std::string ReplCluster::commitLogDiff(int64_t from, int64_t to) const {
  return rmq::test::commitLogDiff(master.path("store/commitlog"), slave.path("store/commitlog"), spec.commitLogFileSize,
                                  from, to);
}

std::string commitLogDiff(const std::string& dirA, const std::string& dirB, int64_t fileSize, int64_t from, int64_t to,
                          const std::string& nameA, const std::string& nameB) {
  auto a = readCommitLog(dirA, fileSize, from, to);
  auto b = readCommitLog(dirB, fileSize, from, to);
  const auto want = static_cast<size_t>(to - from);
  if (a.size() != want || b.size() != want) {
    return "commit logs shorter than [" + std::to_string(from) + ", " + std::to_string(to) + "): " + nameA + " has " +
           std::to_string(a.size()) + " bytes, " + nameB + " " + std::to_string(b.size());
  }
  auto mis = std::mismatch(a.begin(), a.end(), b.begin());
  if (mis.first == a.end()) return "";
  return "first difference at physical offset " + std::to_string(from + (mis.first - a.begin()));
}

}  // namespace rmq::test
