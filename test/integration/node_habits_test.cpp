// A RocketMQ operator's habits with real rmqnode processes: `-c broker-a-s.properties` without
// --role (the role from brokerRole, as mqbroker), --role still winning, -p / -m (mqbroker's
// print-and-exit flags), values Java clamps starting with a warning, and scripts/rmqnode-stop
// (mqshutdown broker|namesrv).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "node_config.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

// A broker-only process from a .properties file (no name server: nothing to register with).
struct PropertiesBroker {
  NodeProcess node;
  uint16_t port = freeBrokerPort();
  std::string file;

  explicit PropertiesBroker(const std::string& extra) {
    file = node.writeFile("broker-a-s.properties",
                          "brokerClusterName=DefaultCluster\nbrokerName=broker-a\nbrokerIP1=127.0.0.1\n"
                          "listenPort=" + std::to_string(port) + "\nstorePathRootDir=" + node.path("store") +
                              "\nlogDir=" + node.path("logs") + "\nmappedFileSizeCommitLog=4194304\n" + extra);
    node.waitForPorts({port});
  }
};

RunResult runStop(const std::vector<std::string>& args) {
  NodeProcess shell{"/bin/bash"};
  std::vector<std::string> all{std::string(RMQ_SOURCE_DIR) + "/scripts/rmqnode-stop"};
  all.insert(all.end(), args.begin(), args.end());
  return shell.run(all, 60s);
}

}  // namespace

TEST_CASE("rmqnode -c FILE without --role: brokerRole SLAVE makes a slave, else a master; --role wins") {
  PropertiesBroker slave("brokerId=1\nbrokerRole=SLAVE\n");
  slave.node.setArgs({"-c", slave.file});
  REQUIRE_MESSAGE(slave.node.start(), slave.node.stderrText());
  CHECK(eventually([&] { return slave.node.log("broker.log").find("started: role=slave ") != std::string::npos; }, 5s));
  CHECK(slave.node.stop() == 0);

  PropertiesBroker master("brokerId=0\n");
  master.node.setArgs({"-c", master.file});
  REQUIRE_MESSAGE(master.node.start(), master.node.stderrText());
  CHECK(eventually([&] { return master.node.log("broker.log").find("started: role=master ") != std::string::npos; }, 5s));
  CHECK(master.node.stop() == 0);

  // --role given: it wins over the file either way.
  auto asMaster = slave.node.run({"--role=master", "-c", slave.file, "-p"});
  CHECK(asMaster.exitCode == 0);
  CHECK(asMaster.out.find("\nbrokerRole=ASYNC_MASTER\n") != std::string::npos);
  auto asSlave = master.node.run({"--role=slave", "-c", master.file, "-p"});
  CHECK(asSlave.exitCode != 0);  // a slave needs brokerId > 0, whatever the file's role
  CHECK(asSlave.err.find("brokerId must be > 0") != std::string::npos);

  auto none = master.node.run({});
  CHECK(none.exitCode == 2);
  CHECK(none.err.find("--role is required") != std::string::npos);
}

TEST_CASE("rmqnode -p prints every key as key=value, -m the important ones (mqbroker -p / -m), then exits") {
  PropertiesBroker b("brokerId=1\nbrokerRole=SLAVE\nfileReservedTime=48\n");
  auto all = b.node.run({"-c", b.file, "-p"});
  REQUIRE(all.exitCode == 0);
  CHECK(all.out.find("\nbrokerRole=SLAVE\n") != std::string::npos);
  CHECK(all.out.find("\nfileReservedTime=48\n") != std::string::npos);
  CHECK(all.out.find("\nlistenPort=" + std::to_string(b.port) + "\n") != std::string::npos);
  CHECK(all.out.find("\nflushConsumeQueueLeastPages=") != std::string::npos);
  auto important = b.node.run({"-c", b.file, "-m"});
  REQUIRE(important.exitCode == 0);
  CHECK(important.out.find("brokerName=broker-a\n") != std::string::npos);
  CHECK(important.out.find("\nbrokerRole=SLAVE\n") != std::string::npos);
  CHECK(important.out.find("\nfileReservedTime=48\n") != std::string::npos);
  CHECK(important.out.find("listenPort=") == std::string::npos);  // not @ImportantField in Java
  CHECK(important.out.size() < all.out.size() / 4);
  auto ns = b.node.run({"--role=namesrv", "-p"});
  REQUIRE(ns.exitCode == 0);
  CHECK(ns.out.find("\nkvConfigPath=") != std::string::npos);
  CHECK(ns.out.find("brokerRole=") == std::string::npos);
}

TEST_CASE("values Java clamps (diskMaxUsedSpaceRatio, registerNameServerPeriod, registerBrokerTimeoutMills) start with a warning") {
  PropertiesBroker b("diskMaxUsedSpaceRatio=99\nregisterNameServerPeriod=1000\nregisterBrokerTimeoutMills=-5\n");
  auto print = b.node.run({"-c", b.file, "--print-config"});
  REQUIRE_MESSAGE(print.exitCode == 0, print.err);
  CHECK(print.out.find("\ndiskMaxUsedSpaceRatio = 95\n") != std::string::npos);
  CHECK(print.out.find("# clamped: config at " + b.file + ":9: key 'registerNameServerPeriod': 1000 is outside") !=
        std::string::npos);
  b.node.setArgs({"-c", b.file});
  REQUIRE_MESSAGE(b.node.start(), b.node.stderrText());
  CHECK(eventually([&] {
    auto log = b.node.log("broker.log");
    return log.find("key 'diskMaxUsedSpaceRatio': 99 is outside [10, 95]; using 95") != std::string::npos &&
           log.find("key 'registerBrokerTimeoutMills': -5 is outside") != std::string::npos;
  }, 5s));
  CHECK(b.node.stop() == 0);
}

TEST_CASE("scripts/rmqnode-stop broker|namesrv stops the processes of that role (mqshutdown), MATCH narrows") {
  PropertiesBroker b("brokerId=0\n");
  b.node.setArgs({"-c", b.file});
  REQUIRE_MESSAGE(b.node.start(), b.node.stderrText());
  NodeProcess ns;
  uint16_t nsPort = freePort();
  ns.writeFile("ns.toml", namesrvToml(ns, nsPort));
  ns.setArgs({"--role=namesrv", "-c", ns.path("ns.toml")});
  ns.waitForPorts({nsPort});
  REQUIRE_MESSAGE(ns.start(), ns.stderrText());

  // Only this test's processes: MATCH is each one's own temp folder.
  auto nothing = runStop({"namesrv", b.node.dir() + "/"});  // the broker's folder holds no name server
  CHECK(nothing.exitCode == 1);
  CHECK(nothing.out == "No rmqnode namesrv running.\n");
  CHECK(b.node.running());

  auto stopNs = runStop({"namesrv", ns.dir() + "/"});
  CHECK(stopNs.exitCode == 0);
  CHECK(stopNs.out == "stopped namesrv (pid " + std::to_string(ns.pid()) + ")\n");
  CHECK(ns.waitExit(5s) == 0);  // SIGTERM: a graceful stop
  CHECK(b.node.running());

  auto stopBroker = runStop({"broker", b.node.dir() + "/"});
  CHECK(stopBroker.exitCode == 0);
  CHECK(stopBroker.out == "stopped broker (pid " + std::to_string(b.node.pid()) + ")\n");
  CHECK(b.node.waitExit(5s) == 0);
  CHECK(runStop({"broker", b.node.dir() + "/"}).exitCode == 1);
  CHECK(runStop({"nonsense"}).exitCode == 2);
}
