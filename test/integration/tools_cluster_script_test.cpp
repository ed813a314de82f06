// scripts/cluster.sh driven for real: a layout of its own (name server, SYNC_MASTER, slave) on
// free ports in a temp folder (RMQ_CLUSTER_CONFIG / RMQ_CLUSTER_STATE), started, inspected,
// the slave stopped with SIGSTOP (status shows its lag from the master's side) and continued,
// one node stopped and started again, then everything stopped in order. And a failover layout
// (etcd started by the script, the master killed -9, its slave master at epoch 2, the old master
// back as a slave).
#include <doctest/doctest.h>
#include <signal.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/response_code.h"
#include "broker_calls.h"
#include "http_get.h"
#include "node_config.h"
#include "repl_cluster.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

constexpr const char* kLayout = "t-1m-1s";

// Runs scripts/cluster.sh with the test's folders and binaries.
struct ClusterScript {
  NodeProcess shell{"/bin/bash"};
  std::string config = shell.path("config");
  std::string state = shell.path("state");
  std::string layout;

  explicit ClusterScript(std::string layoutName = kLayout) : layout(std::move(layoutName)) {
    shell.setEnv("RMQ_CLUSTER_CONFIG", config);
    shell.setEnv("RMQ_CLUSTER_STATE", state);
    shell.setEnv("RMQNODE_BIN", RMQNODE_BIN);
    shell.setEnv("RMQADMIN_BIN", RMQADMIN_BIN);
  }
  // Whatever a failed check left running goes down with the test.
  ~ClusterScript() { run({"stop", layout}); }

  RunResult run(std::vector<std::string> args) {
    args.insert(args.begin(), std::string(RMQ_SOURCE_DIR) + "/scripts/cluster.sh");
    return shell.run(args, 120s);
  }
  void writeNode(const std::string& node, const std::string& toml) const {
    shell.writeFile("config/" + layout + "/" + node + ".toml", toml);
  }
  pid_t pidOf(const std::string& node) const { return std::stoi(shell.readFile("state/" + layout + "/" + node + ".pid")); }
  // Folders of the two brokers (stores, logs); never started as NodeProcesses, the script runs them.
  NodeProcess masterDir, slaveDir;
};

// A broker of the layout, its store and logs in `dir`.
std::string layoutBroker(const NodeProcess& dir, uint16_t port, int id, const char* role, uint16_t nsPort,
                         uint16_t httpPort = 0, const std::string& extraStore = "") {
  return logDirToml(dir, httpPort) + brokerToml(dir, {.port = port, .namesrvAddr = "127.0.0.1:" + std::to_string(nsPort),
                                            .name = "broker-t", .id = id, .role = role, .extraStore = extraStore});
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The byte count printed just before `marker` ("N bytes behind ..."); -1 when the marker is absent.
int64_t bytesBefore(const std::string& text, const std::string& marker) {
  auto at = text.find(marker);
  if (at == std::string::npos) return -1;
  auto start = text.rfind(' ', at > 0 ? at - 1 : 0);
  start = start == std::string::npos ? 0 : start + 1;
  return std::stoll(text.substr(start, at - start));
}

// The line of `text` that starts with `first` followed by a blank ("" when there is none).
std::string lineOf(const std::string& text, const std::string& first) {
  std::string want = first + " ";
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text.compare(at, want.size(), want) == 0) return text.substr(at, end - at);
    at = end + 1;
  }
  return "";
}

int sendTo(TestClient& c, const std::string& addr) {
  auto r = c.call(addr, sendRequest({.topic = "ScriptT", .body = "via cluster.sh"}), 15s);
  return r.ok() ? r->code : -1000;
}

}  // namespace

TEST_CASE("cluster.sh: start, status with a slave's lag, stop NODE / start NODE, graceful stop in order") {
  ClusterScript s;
  const uint16_t nsPort = freePort();
  const uint16_t masterPort = freeBrokerPort();
  const uint16_t slavePort = freeBrokerPort();
  const uint16_t httpPort = freePort();
  s.writeNode("namesrv-1", namesrvToml(s.shell, nsPort));  // logs etc. under the shell's folder
  // A long housekeeping interval: the master keeps the connection of its SIGSTOPped slave below.
  s.writeNode("broker-t", layoutBroker(s.masterDir, masterPort, 0, "SYNC_MASTER", nsPort, httpPort,
                                       "haHousekeepingInterval = 120000\n"));
  s.writeNode("broker-t-s", layoutBroker(s.slaveDir, slavePort, 1, "SLAVE", nsPort));
  const std::string master = "127.0.0.1:" + std::to_string(masterPort);

  auto started = s.run({"start", kLayout});
  REQUIRE_MESSAGE(started.exitCode == 0, started.out << started.err);
  // Name server first, then the master, then its slave, each once it answers.
  auto ns = started.out.find("namesrv-1"), m = started.out.find("broker-t "), sl = started.out.find("broker-t-s");
  REQUIRE(ns != std::string::npos);
  REQUIRE(m != std::string::npos);
  REQUIRE(sl != std::string::npos);
  CHECK((ns < m && m < sl));
  CHECK(contains(started.out, "ha=" + std::to_string(masterPort + 1)));
  // The master's HTTP port is printed, with the Prometheus targets of the layout, and serves.
  CHECK(contains(started.out, "http=" + std::to_string(httpPort)));
  CHECK(contains(started.out, "targets: ['127.0.0.1:" + std::to_string(httpPort) + "']"));
  CHECK(eventually([&] { return httpGet(httpPort, "/readyz").status == 200; }, 30s));

  // SYNC_MASTER with its slave: SEND_OK once the slave follows; status then shows the slave caught up.
  TestClient c;
  REQUIRE(eventually([&] { return sendTo(c, master) == ResponseCode::SUCCESS; }, 60s));
  RunResult status;
  REQUIRE(eventually(
      [&] {
        status = s.run({"status", kLayout});
        return contains(status.out, "0 bytes behind broker-t (connected)");
      },
      30s));
  CHECK(contains(status.out, "SYNC_MASTER"));
  CHECK(contains(status.out, "SLAVE"));

  // The slave stopped (SIGSTOP): it answers nothing, so status shows its master's view, the bytes
  // the slave has not acknowledged; after SIGCONT it catches up and shows 0 bytes behind again.
  const pid_t slavePid = std::stoi(s.shell.readFile("state/" + std::string(kLayout) + "/broker-t-s.pid"));
  REQUIRE(::kill(slavePid, SIGSTOP) == 0);
  REQUIRE(waitAllThreadsStopped(slavePid, 30s));
  CHECK(sendTo(c, master) == ResponseCode::FLUSH_SLAVE_TIMEOUT);  // stored on the master, not acked
  status = s.run({"status", kLayout});
  const int64_t behind = bytesBefore(status.out, " bytes behind broker-t (master's view of 127.0.0.1:");
  CHECK_MESSAGE(behind > 0, status.out);
  CHECK(contains(status.out, "slave does not answer"));
  REQUIRE(::kill(slavePid, SIGCONT) == 0);
  CHECK(eventually(
      [&] {
        status = s.run({"status", kLayout});
        return contains(status.out, "0 bytes behind broker-t (connected)");
      },
      60s));

  // One node down: the others keep running; the slave reports its master gone.
  auto stopped = s.run({"stop", kLayout, "broker-t"});
  CHECK(contains(stopped.out, "stopped broker-t"));
  status = s.run({"status", kLayout});
  CHECK(contains(status.out, "stopped"));
  CHECK(contains(status.out, "master broker-t down"));
  CHECK(sendTo(c, master) == -1000);

  // Back with `start NODE` (no layout: the one started last); the slave follows it again.
  auto again = s.run({"start", "broker-t"});
  REQUIRE_MESSAGE(again.exitCode == 0, again.out << again.err);
  REQUIRE(eventually([&] { return sendTo(c, master) == ResponseCode::SUCCESS; }, 60s));

  // Graceful stop: brokers (slave, then master) before the name server; nothing left running.
  auto down = s.run({"stop"});
  REQUIRE(down.exitCode == 0);
  auto ds = down.out.find("stopped broker-t-s"), dm = down.out.find("stopped broker-t "),
       dn = down.out.find("stopped namesrv-1");
  REQUIRE(ds != std::string::npos);
  REQUIRE(dm != std::string::npos);
  REQUIRE(dn != std::string::npos);
  CHECK((ds < dm && dm < dn));
  status = s.run({"status", kLayout});
  CHECK(!contains(status.out, " yes "));
  for (auto& e : std::filesystem::directory_iterator(s.state + "/" + kLayout))
    CHECK_MESSAGE(e.path().extension() != ".pid", e.path().string());
}

TEST_CASE("cluster.sh: a failover layout: 3-member etcd first, kill -9 of the master, its slave master at epoch 2") {
  ClusterScript s("t-failover");
  // Three etcd members on free ports; the script puts each one's peer port just above its client port.
  std::string endpoints;
  for (int i = 0; i < 3; ++i) endpoints += (i ? ";" : "") + std::string("127.0.0.1:") + std::to_string(freeBrokerPort());
  const uint16_t nsPort = freePort();
  const uint16_t masterPort = freeBrokerPort();
  const uint16_t slavePort = freeBrokerPort();
  const std::string failover = "failoverEnable = true\nfailoverEtcdEndpoints = \"" + endpoints + "\"\n";
  auto broker = [&](const NodeProcess& dir, uint16_t port, int id, const char* role) {
    return logDirToml(dir) + brokerToml(dir, {.port = port, .namesrvAddr = "127.0.0.1:" + std::to_string(nsPort),
                                              .name = "fo-group", .id = id, .role = role, .extraBroker = failover});
  };
  s.writeNode("namesrv-1", namesrvToml(s.shell, nsPort));
  s.writeNode("broker-f", broker(s.masterDir, masterPort, 1, "SYNC_MASTER"));
  s.writeNode("broker-f-s", broker(s.slaveDir, slavePort, 2, "SLAVE"));

  auto started = s.run({"start", s.layout});
  REQUIRE_MESSAGE(started.exitCode == 0, started.out << started.err);
  // etcd (all three) before the name server, then the master, then the slave.
  auto e1 = started.out.find("etcd-1"), e3 = started.out.find("etcd-3"), ns = started.out.find("namesrv-1"),
       m = started.out.find("broker-f "), sl = started.out.find("broker-f-s");
  REQUIRE(e3 != std::string::npos);
  REQUIRE(sl != std::string::npos);
  CHECK((e1 < ns && e3 < ns && ns < m && m < sl));
  CHECK(contains(started.out, "peer=" + std::to_string(std::stoi(endpoints.substr(endpoints.rfind(':') + 1)) + 1)));

  // Every member up, one leader; broker-f master at epoch 1 with broker-f-s in its in-sync set.
  RunResult status;
  const bool settled = eventually(
      [&] {
        status = s.run({"status", s.layout});
        return contains(lineOf(status.out, "fo-group"), "broker-f (brokerId 1)") &&
               contains(lineOf(status.out, "fo-group"), " 1 ") && contains(lineOf(status.out, "fo-group"), "broker-f-s");
      },
      60s);
  REQUIRE_MESSAGE(settled, status.out << status.err);
  int leaders = 0;
  for (const char* e : {"etcd-1", "etcd-2", "etcd-3"}) {
    CHECK_MESSAGE(contains(lineOf(status.out, e), " yes "), status.out);
    leaders += contains(lineOf(status.out, e), " leader (raft term ") ? 1 : 0;
  }
  CHECK(leaders == 1);
  CHECK(contains(lineOf(status.out, "broker-f"), " master "));  // the role now, not SYNC_MASTER
  CHECK(contains(lineOf(status.out, "broker-f"), "epoch 1"));
  CHECK(contains(lineOf(status.out, "broker-f-s"), " slave "));
  CHECK(contains(lineOf(status.out, "broker-f-s"), "bytes behind broker-f "));

  // kill -9 of the master: the slave takes over at epoch 2.
  REQUIRE(::kill(s.pidOf("broker-f"), SIGKILL) == 0);
  const bool tookOver = eventually(
      [&] {
        status = s.run({"status", s.layout});
        return contains(lineOf(status.out, "fo-group"), "broker-f-s (brokerId 2)") &&
               contains(lineOf(status.out, "fo-group"), " 2 ");
      },
      60s);
  REQUIRE_MESSAGE(tookOver, status.out << status.err);
  CHECK(contains(lineOf(status.out, "broker-f-s"), " master "));
  CHECK(contains(lineOf(status.out, "broker-f-s"), "epoch 2"));
  CHECK(contains(lineOf(status.out, "broker-f"), "stopped"));
  // Alone (its in-sync set empty, as recorded in etcd), the new SYNC_MASTER acknowledges by itself
  // (src/roles/broker/failover/README.md).
  TestClient c;
  const std::string newMaster = "127.0.0.1:" + std::to_string(slavePort);
  CHECK(eventually([&] { return sendTo(c, newMaster) == ResponseCode::SUCCESS; }, 30s));

  // The old master started again rejoins as a slave of the new one; the group stays at epoch 2 and
  // the new master acknowledges sends (SYNC_MASTER: its in-sync slave has them).
  auto again = s.run({"start", s.layout, "broker-f"});
  REQUIRE_MESSAGE(again.exitCode == 0, again.out << again.err);
  const bool rejoined = eventually(
      [&] {
        status = s.run({"status", s.layout});
        return contains(lineOf(status.out, "broker-f"), " slave ") &&
               contains(lineOf(status.out, "broker-f"), "bytes behind broker-f-s ");
      },
      60s);
  CHECK_MESSAGE(rejoined, status.out << status.err);
  CHECK(contains(lineOf(status.out, "fo-group"), "broker-f-s (brokerId 2)"));
  CHECK(eventually([&] { return sendTo(c, newMaster) == ResponseCode::SUCCESS; }, 30s));
  // ... and lists the old master in its in-sync set (the group line's last column).
  CHECK(eventually(
      [&] {
        status = s.run({"status", s.layout});
        const std::string group = lineOf(status.out, "fo-group");
        return contains(group, "broker-f-s (brokerId 2)") && group.ends_with(" 2      broker-f");
      },
      30s));

  // Stop: brokers (the slave of now first), the name server, etcd last; nothing left running.
  auto down = s.run({"stop", s.layout});
  REQUIRE_MESSAGE(down.exitCode == 0, down.out << down.err);
  auto dSlave = down.out.find("stopped broker-f "), dMaster = down.out.find("stopped broker-f-s"),
       dNs = down.out.find("stopped namesrv-1"), dEtcd = down.out.find("stopped etcd-1");
  REQUIRE(dEtcd != std::string::npos);
  CHECK((dSlave < dMaster && dMaster < dNs && dNs < dEtcd));
  for (auto& e : std::filesystem::directory_iterator(s.state + "/" + s.layout))
    CHECK_MESSAGE(e.path().extension() != ".pid", e.path().string());
}
