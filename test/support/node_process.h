#pragma once
// NodeProcess: runs a real `rmqnode` (or any binary: etcd, etcdctl) as a child process for tests
// (test/support/: linked into integration_tests and every unit_<module>).
// Each instance owns a temp directory under /tmp (removed on destruction) that is also the
// child's $HOME, so RocketMQ-style defaults ($HOME/store, $HOME/namesrv, logs) stay inside it.
// The child's stdout/stderr go to <dir>/stdout.txt and <dir>/stderr.txt.
//
// The fixture family: NodeProcess (this file: a process, ports, waits), node_config.h (TOML of a
// name server / broker in a NodeProcess's directory), dev_node.h (DevNode: name server + master
// in one process), test_client.h (TestClient), broker_requests.h / broker_calls.h (requests and
// send / dispatch / pull helpers), client_fixture.h (client-library clients of a DevNode),
// namesrv_client.h (Namesrv, registration), tools_util.h.
//
//   rmq::test::NodeProcess ns;
//   uint16_t port = rmq::test::freePort();
//   ns.writeFile("ns.toml", rmq::test::namesrvToml(ns, port, "brokerExpiredMillis = 1000\n"));
//   ns.setArgs({"--role=namesrv", "-c", ns.path("ns.toml")});
//   ns.waitForPorts({port});
//   REQUIRE(ns.start());              // spawned, and every port accepts a connection
//   ... ns.stop() (SIGTERM, returns the exit code) / ns.kill() / ns.restart() / ns.log("namesrv.log")
//
// Not thread-safe; use from the test's thread.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rmq::test {

// A TCP port on 127.0.0.1 that was free a moment ago, below the kernel's ephemeral range (so no
// outgoing connection takes it meanwhile), that no earlier freePort() / freeBrokerPort() of this
// process handed out.
uint16_t freePort();
// A free port p whose neighbours a broker also binds look free: p - 2 (VIP channel), p + 1 (HA);
// none of p - 2 .. p + 1 is handed out again by this process.
uint16_t freeBrokerPort();
// True when host:port (an IPv4 address) accepts a TCP connection.
bool portAccepts(uint16_t port, const std::string& host = "127.0.0.1");
// A blocking TCP socket connected to 127.0.0.1:port (the caller closes it), or -1.
int connectLoopback(uint16_t port);
// Polls `cond` every 50 ms until it holds (true) or `timeout` passes (false).
bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds timeout);
std::string readWholeFile(const std::string& path);

struct RunResult {
  int exitCode = -1;  // 128 + signal if killed
  std::string out;
  std::string err;
};

class NodeProcess {
 public:
#ifdef RMQNODE_BIN  // integration_tests: rmqnode by default; other tests name their binary
  explicit NodeProcess(std::string binary = RMQNODE_BIN);
#else
  explicit NodeProcess(std::string binary);
#endif
  ~NodeProcess();  // SIGKILL if still running, then removes the directory
  NodeProcess(const NodeProcess&) = delete;
  NodeProcess& operator=(const NodeProcess&) = delete;

  const std::string& dir() const { return dir_; }
  std::string path(const std::string& relative) const { return dir_ + "/" + relative; }
  // Writes <dir>/<relative> (creating parent directories); returns the full path.
  std::string writeFile(const std::string& relative, const std::string& text) const;
  std::string readFile(const std::string& relative) const { return readWholeFile(path(relative)); }

  void setArgs(std::vector<std::string> args) { args_ = std::move(args); }
  // Extra environment (on top of the test's, with HOME=<dir>).
  void setEnv(std::string key, std::string value) { env_.emplace_back(std::move(key), std::move(value)); }
  // start() waits until each of `ports` accepts on `host` (a node in another network namespace
  // is reached on its address there).
  void waitForPorts(std::vector<uint16_t> ports, std::string host = "127.0.0.1") {
    ports_ = std::move(ports);
    portsHost_ = std::move(host);
  }
  // A command the binary runs under, e.g. {"ip", "netns", "exec", "ns1"}: the child is
  // `launcher... binary args...` (launcher[0] looked up in PATH). The launcher must exec the binary
  // in place (ip netns exec does), so pid() / kill() / SIGSTOP reach the binary itself.
  void setLauncher(std::vector<std::string> launcher) { launcher_ = std::move(launcher); }

  // Spawns the child and waits until every port accepts. False (child killed) when the child
  // exits first or the timeout passes; see stderrText().
  bool start(std::chrono::milliseconds timeout = std::chrono::seconds(15));
  // SIGTERM, wait up to `timeout`, then SIGKILL. Returns the exit code (128+signal if killed).
  int stop(std::chrono::milliseconds timeout = std::chrono::seconds(15));
  void kill();
  bool restart(std::chrono::milliseconds timeout = std::chrono::seconds(15));
  bool running();
  // Waits for the child to exit by itself; nullopt on timeout.
  std::optional<int> waitExit(std::chrono::milliseconds timeout);
  pid_t pid() const { return pid_; }

  // Runs the binary to completion with `args` (HOME=<dir>), capturing output. Kills it after
  // `timeout` (exitCode 128+9).
  RunResult run(const std::vector<std::string>& args, std::chrono::milliseconds timeout = std::chrono::seconds(15));

  std::string stdoutText() const { return readFile("stdout.txt"); }
  std::string stderrText() const { return readFile("stderr.txt"); }
  // A log file of the node: <dir>/logs/<name> when the config sets logDir = dir/logs (the
  // helpers below do).
  std::string log(const std::string& name) const { return readFile("logs/" + name); }

 private:
  pid_t spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err);
  std::optional<int> reap(bool block);

  std::string binary_;
  std::string dir_;
  std::vector<std::string> args_;
  std::vector<std::pair<std::string, std::string>> env_;
  std::vector<uint16_t> ports_;
  std::string portsHost_ = "127.0.0.1";
  std::vector<std::string> launcher_;
  pid_t pid_ = -1;
  std::optional<int> lastExit_;
};

}  // namespace rmq::test
