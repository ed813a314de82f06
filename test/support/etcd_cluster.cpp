#include "etcd_cluster.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace rmq::test {
namespace {

std::string tail(const std::string& text, size_t n = 1500) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

}  // namespace

std::string etcdTool(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    std::string full = dir + "/" + name;
    if (::access(full.c_str(), X_OK) == 0) return full;
  }
  throw std::runtime_error("`" + name + "` not found in PATH: install Debian's etcd-server and etcd-client " +
                           "(scripts/install-deps.sh)");
}

EtcdCluster::EtcdCluster(size_t members, std::string host) : etcdctlPath_(etcdTool("etcdctl")), host_(std::move(host)) {
  const std::string etcd = etcdTool("etcd");
  std::string initialCluster;
  for (size_t i = 0; i < members; ++i) {
    Member m{"m" + std::to_string(i), freePort(), freePort(), std::make_unique<NodeProcess>(etcd)};
    initialCluster += (i ? "," : "") + m.name + "=http://" + host_ + ":" + std::to_string(m.peerPort);
    members_.push_back(std::move(m));
  }
  // A token of this cluster only: members of two tests' clusters never take each other's messages.
  const std::string token = "rmq-test-" + std::to_string(::getpid()) + "-" + std::to_string(members_[0].clientPort);
  for (auto& m : members_) {
    const std::string client = "http://" + host_ + ":" + std::to_string(m.clientPort);
    const std::string peer = "http://" + host_ + ":" + std::to_string(m.peerPort);
    m.process->setArgs({"--name", m.name, "--data-dir", m.process->path("data"),
                        "--listen-client-urls", client, "--advertise-client-urls", client,
                        "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                        "--initial-cluster", initialCluster, "--initial-cluster-state", "new",
                        "--initial-cluster-token", token});
    m.process->waitForPorts({m.clientPort}, host_);
  }
}

EtcdCluster::~EtcdCluster() = default;

std::string EtcdCluster::endpoint(size_t i) const { return host_ + ":" + std::to_string(members_[i].clientPort); }

std::vector<std::string> EtcdCluster::endpoints() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < members_.size(); ++i) out.push_back(endpoint(i));
  return out;
}

void EtcdCluster::start(std::chrono::milliseconds timeout) {
  // Every member first: one alone has no quorum, so none is healthy before the others run.
  for (size_t i = 0; i < members_.size(); ++i) {
    if (!members_[i].process->start(timeout))
      throw std::runtime_error("etcd member " + members_[i].name + " did not start:\n" +
                               tail(members_[i].process->stderrText()));
  }
  for (size_t i = 0; i < members_.size(); ++i) {
    if (!eventually([&] { return healthy(i); }, timeout))
      throw std::runtime_error("etcd member " + members_[i].name + " not healthy within " +
                               std::to_string(timeout.count()) + "ms:\n" + tail(members_[i].process->stderrText()));
  }
}

void EtcdCluster::kill(size_t i) { members_[i].process->kill(); }

bool EtcdCluster::restart(size_t i, std::chrono::milliseconds timeout) {
  if (!members_[i].process->start(timeout)) return false;
  return eventually([&] { return healthy(i); }, timeout);
}

RunResult EtcdCluster::etcdctl(size_t i, std::vector<std::string> args) {
  args.insert(args.begin(), {"--endpoints=" + endpoint(i), "--dial-timeout=1s", "--command-timeout=1s"});
  NodeProcess tool(etcdctlPath_);
  return tool.run(args, std::chrono::seconds(5));
}

bool EtcdCluster::healthy(size_t i) {
  if (!members_[i].process->running()) return false;
  return etcdctl(i, {"endpoint", "health"}).exitCode == 0;
}

std::optional<size_t> EtcdCluster::leader() {
  for (size_t i = 0; i < members_.size(); ++i) {
    if (!members_[i].process->running()) continue;
    // -w simple: "endpoint, ID, version, db size, is leader, is learner, raft term, ..."
    auto r = etcdctl(i, {"endpoint", "status", "-w", "simple"});
    if (r.exitCode != 0) continue;
    std::stringstream fields(r.out);
    std::string field;
    for (int f = 0; f < 5 && std::getline(fields, field, ','); ++f) {}
    if (field == " true") return i;
  }
  return std::nullopt;
}

}  // namespace rmq::test
