#include "netns_link.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "node_process.h"

namespace rmq::test {
namespace {

constexpr const char* kPrefix = "rmqfo";  // namespaces: rmqfo<pid>-<n>
constexpr const char* kNetnsDir = "/var/run/netns/";

// `ip` from PATH, else the sbin folders a non-login root shell may lack; "" when none.
std::string findIp() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(std::string(path ? path : "") + ":/usr/sbin:/sbin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((dir + "/ip").c_str(), X_OK) == 0) return dir + "/ip";
  return "";
}

}  // namespace

bool NetnsLink::ipCommand(const std::vector<std::string>& args, std::string* err) const {
  NodeProcess tool(ip_);
  auto r = tool.run(args, std::chrono::seconds(10));
  if (r.exitCode != 0 && err) {
    *err = "`ip";
    for (auto& a : args) *err += " " + a;
    *err += "` failed (exit " + std::to_string(r.exitCode) + "): " + r.err;
  }
  return r.exitCode == 0;
}

// Namespaces of test processes that are gone (killed before their destructor ran): deleting the
// namespace destroys its veth end, and with it the pair.
void NetnsLink::removeLeftovers(const std::string& ip) {
  std::error_code ec;
  for (auto& entry : std::filesystem::directory_iterator(kNetnsDir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(kPrefix)) continue;
    const long pid = std::strtol(name.c_str() + std::char_traits<char>::length(kPrefix), nullptr, 10);
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) {
      NodeProcess tool(ip);
      tool.run({"netns", "del", name}, std::chrono::seconds(10));
    }
  }
}

std::unique_ptr<NetnsLink> NetnsLink::create(std::string& whyNot) {
  if (::geteuid() != 0) {
    whyNot = "not root (euid " + std::to_string(::geteuid()) +
             "): making network namespaces and veth pairs needs CAP_SYS_ADMIN and CAP_NET_ADMIN";
    return nullptr;
  }
  const std::string ip = findIp();
  if (ip.empty()) {
    whyNot = "`ip` (Debian iproute2) not found in PATH, /usr/sbin or /sbin";
    return nullptr;
  }
  removeLeftovers(ip);
  static std::atomic<int> made{0};
  const int n = made++ % 100;
  const std::string id = std::to_string(::getpid()) + "-" + std::to_string(n);
  std::unique_ptr<NetnsLink> link(new NetnsLink());
  link->ip_ = ip;
  link->name_ = kPrefix + id;
  link->rootVeth_ = "rfo" + id + "a";  // at most 14 characters (IFNAMSIZ - 1 = 15)
  link->nsVeth_ = "rfo" + id + "b";
  // A /30 of 10.241.0.0/16 of this process: parallel test processes do not share one.
  const int block = static_cast<int>((static_cast<unsigned>(::getpid()) * 7u + static_cast<unsigned>(n)) % 16384u);
  const std::string net = "10.241." + std::to_string(block / 64) + ".";
  link->rootIp_ = net + std::to_string(block % 64 * 4 + 1);
  link->nsIp_ = net + std::to_string(block % 64 * 4 + 2);

  std::string err;
  if (!link->ipCommand({"netns", "add", link->name_}, &err)) {
    link->name_.clear();  // nothing to delete
    whyNot = "network namespaces unavailable here: " + err;
    return nullptr;
  }
  const std::vector<std::vector<std::string>> steps{
      {"link", "add", link->rootVeth_, "type", "veth", "peer", "name", link->nsVeth_},
      {"link", "set", link->nsVeth_, "netns", link->name_},
      {"addr", "add", link->rootIp_ + "/30", "dev", link->rootVeth_},
      {"link", "set", link->rootVeth_, "up"},
      {"-n", link->name_, "addr", "add", link->nsIp_ + "/30", "dev", link->nsVeth_},
      {"-n", link->name_, "link", "set", link->nsVeth_, "up"},
      {"-n", link->name_, "link", "set", "lo", "up"},
  };
  for (auto& step : steps) {
    if (!link->ipCommand(step, &err)) {
      whyNot = "a veth link into a network namespace cannot be made here: " + err;
      return nullptr;  // the destructor removes what was made
    }
  }
  return link;
}

NetnsLink::~NetnsLink() {
  if (name_.empty()) return;
  ipCommand({"netns", "del", name_});
  ipCommand({"link", "del", rootVeth_});  // normally gone with the namespace already
}

bool NetnsLink::cut() { return ipCommand({"link", "set", rootVeth_, "down"}); }

bool NetnsLink::restore() { return ipCommand({"link", "set", rootVeth_, "up"}); }

bool NetnsLink::enterOnThisThread() const {
  const int fd = ::open((kNetnsDir + name_).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::setns(fd, CLONE_NEWNET) == 0;
  ::close(fd);
  return ok;
}

}  // namespace rmq::test
