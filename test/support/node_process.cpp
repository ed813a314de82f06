#include "node_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace rmq::test {
namespace {

using Clock = std::chrono::steady_clock;

int decodeStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// `op` (::bind or ::connect) of a fresh TCP socket to host:port (IPv4, 127.0.0.1 by default) succeeded.
bool onSocket(uint16_t port, int (*op)(int, const sockaddr*, socklen_t), const char* host = "127.0.0.1") {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (::inet_pton(AF_INET, host, &a.sin_addr) != 1) return false;
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  bool ok = op(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

// Ports this test process has handed out (a broker's p - 2 .. p + 1 as a block). Nothing is bound
// between a pick and the node's start, so two picks of one test could otherwise collide; keeping
// them apart here removes that for every test.
std::mutex handedMutex;
std::set<uint16_t> handedPorts;

// First port of the kernel's ephemeral range (ip_local_port_range; 32768 when unreadable). Ports
// are picked below it: a kernel-chosen port (any process's outgoing connection, a bind to port 0)
// is never one of them, so nothing takes a picked port between the pick and the node's start.
int ephemeralLow() {
  std::ifstream in("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 32768;
  if (!(in >> low) || low <= 12000) low = 32768;
  return low;
}

// The part of [10000, ephemeral low) this process picks from: all of it, or with RMQ_TEST_SHARD=K/N
// (integration shards run side by side, test/unit/doctest_main.cpp) the K-th of N slices, so two
// shards never pick the same port between a pick and the node's bind.
std::pair<int, int> portRange() {
  int low = 10000, high = ephemeralLow();
  int k = 0, n = 0;
  const char* shard = std::getenv("RMQ_TEST_SHARD");
  if (shard != nullptr && std::sscanf(shard, "%d/%d", &k, &n) == 2 && n >= 1 && k >= 1 && k <= n) {
    const int width = (high - low) / n;
    low += (k - 1) * width;
    high = low + width;
  }
  return {low, high};
}

// A port in portRange() bindable now and not handed out before, with the ports
// [p - below, p + above] bindable and never handed out too; the whole block is then recorded.
uint16_t pickPort(int below, int above) {
  static const auto [low, high] = portRange();
  static std::mt19937 random{std::random_device{}()};
  std::uniform_int_distribution<int> candidate(low + below, high - 1 - above);
  std::lock_guard lock(handedMutex);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const int p = candidate(random);
    bool usable = true;
    for (int q = p - below; q <= p + above && usable; ++q) {
      usable = !handedPorts.contains(static_cast<uint16_t>(q)) && onSocket(static_cast<uint16_t>(q), ::bind);
    }
    if (!usable) continue;
    for (int q = p - below; q <= p + above; ++q) handedPorts.insert(static_cast<uint16_t>(q));
    return static_cast<uint16_t>(p);
  }
  throw std::runtime_error("freePort: no usable port in 1000 picks");
}

}  // namespace

uint16_t freePort() { return pickPort(0, 0); }

uint16_t freeBrokerPort() { return pickPort(2, 1); }

bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (!cond()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

bool portAccepts(uint16_t port, const std::string& host) { return onSocket(port, ::connect, host.c_str()); }

int connectLoopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    fd = -1;
  }
  return fd;
}

std::string readWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

NodeProcess::NodeProcess(std::string binary) : binary_(std::move(binary)) {
  char tmpl[] = "/tmp/rmqnode_it_XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
}

NodeProcess::~NodeProcess() {
  kill();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string NodeProcess::writeFile(const std::string& relative, const std::string& text) const {
  auto full = path(relative);
  std::filesystem::create_directories(std::filesystem::path(full).parent_path());
  std::ofstream(full, std::ios::binary | std::ios::trunc) << text;
  return full;
}

pid_t NodeProcess::spawn(const std::vector<std::string>& args, const std::string& out, const std::string& err) {
  std::vector<std::string> envStrings;
  for (char** e = environ; *e; ++e) {
    std::string_view kv(*e);
    auto key = kv.substr(0, kv.find('='));
    bool overridden = key == "HOME";
    for (auto& [k, v] : env_) overridden = overridden || key == k;
    if (!overridden) envStrings.emplace_back(kv);
  }
  envStrings.push_back("HOME=" + dir_);
  for (auto& [k, v] : env_) envStrings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : envStrings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argStrings = launcher_;
  argStrings.push_back(binary_);
  argStrings.insert(argStrings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argStrings) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  // posix_spawnp: a launcher is named as on a command line ("ip"); binaries are full paths anyway.
  int rc = posix_spawnp(&pid, argStrings[0].c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error(std::string("posix_spawn: ") + std::strerror(rc));
  return pid;
}

std::optional<int> NodeProcess::reap(bool block) {
  if (pid_ <= 0) return lastExit_;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
  if (r == pid_) {
    lastExit_ = decodeStatus(status);
    pid_ = -1;
    return lastExit_;
  }
  return std::nullopt;
}

bool NodeProcess::running() { return pid_ > 0 && !reap(false); }

bool NodeProcess::start(std::chrono::milliseconds timeout) {
  kill();
  lastExit_.reset();
  pid_ = spawn(args_, path("stdout.txt"), path("stderr.txt"));
  auto deadline = Clock::now() + timeout;
  for (;;) {
    if (!running()) return false;
    bool all = true;
    for (auto p : ports_) all = all && portAccepts(p, portsHost_);
    if (all) return true;
    if (Clock::now() > deadline) { kill(); return false; }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::optional<int> NodeProcess::waitExit(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (pid_ > 0) {
    if (auto code = reap(false)) return code;
    if (Clock::now() > deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return lastExit_;
}

int NodeProcess::stop(std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return lastExit_.value_or(-1);
  ::kill(pid_, SIGTERM);
  if (auto code = waitExit(timeout)) return *code;
  kill();
  return lastExit_.value_or(-1);
}

void NodeProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  reap(true);
}

bool NodeProcess::restart(std::chrono::milliseconds timeout) {
  stop(timeout);
  return start(timeout);
}

RunResult NodeProcess::run(const std::vector<std::string>& args, std::chrono::milliseconds timeout) {
  pid_t saved = pid_;
  pid_ = spawn(args, path("run_stdout.txt"), path("run_stderr.txt"));
  RunResult r;
  if (auto code = waitExit(timeout)) {
    r.exitCode = *code;
  } else {
    kill();
    r.exitCode = lastExit_.value_or(-1);
  }
  pid_ = saved;
  r.out = readFile("run_stdout.txt");
  r.err = readFile("run_stderr.txt");
  return r;
}

}  // namespace rmq::test
