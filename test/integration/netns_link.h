#pragma once
// NetnsLink: a network namespace of the test's own and a veth pair joining it to the test's
// namespace, for partition drills (failover_partition_test.cpp). The link has a private /30 of
// 10.241.0.0/16 (picked from the test's pid): the root side has .1, the namespace side .2; traffic
// on it never leaves this machine. cut() / restore() take the root side down / up: packets from
// the namespace are then dropped silently (peers time out, as on a real partition), while the
// root side's address stays reachable from the test's own namespace.
//
//   std::string why;
//   auto link = NetnsLink::create(why);
//   if (!link) { MESSAGE("skipped: " << why); return; }   // not root, no `ip`, no netns support
//   node.setLauncher(link->launcher());                      // the node runs inside the namespace
//   link->cut(); ... link->restore();
//   std::thread([&] { link->enterOnThisThread(); TestClient c; ... });  // a client inside it
//
// The destructor deletes the namespace and the veth pair (also when a REQUIRE failed). create()
// first deletes what killed test processes left behind (names carry their pid).
#include <memory>
#include <string>
#include <vector>

namespace rmq::test {

class NetnsLink {
 public:
  // A new namespace + link, lo and both veth ends up; nullptr with `whyNot` saying why it cannot
  // be made here (not root, `ip` missing, `ip netns add` refused).
  static std::unique_ptr<NetnsLink> create(std::string& whyNot);
  ~NetnsLink();
  NetnsLink(const NetnsLink&) = delete;
  NetnsLink& operator=(const NetnsLink&) = delete;

  const std::string& name() const { return name_; }
  const std::string& rootIp() const { return rootIp_; }  // the test's side of the link
  const std::string& nsIp() const { return nsIp_; }      // the namespace's side
  // The command prefix that runs a binary inside the namespace (NodeProcess::setLauncher).
  std::vector<std::string> launcher() const { return {ip_, "netns", "exec", name_}; }

  bool cut();      // root side of the veth down: the namespace is partitioned from everything
  bool restore();  // and up again
  // Moves the calling thread (only it) into the namespace: sockets it and the threads it starts
  // afterwards make live there. False when setns fails.
  bool enterOnThisThread() const;

 private:
  NetnsLink() = default;
  bool ipCommand(const std::vector<std::string>& args, std::string* err = nullptr) const;
  static void removeLeftovers(const std::string& ip);

  std::string ip_;  // full path of `ip`
  std::string name_, rootVeth_, nsVeth_, rootIp_, nsIp_;
};

}  // namespace rmq::test
