// UPDATE_BROKER_CONFIG / UPDATE_NAMESRV_CONFIG survive a restart: the accepted keys are written
// into the --config file (Java: Configuration.update() -> persist() into the -c file), edited in
// place so the user's comments and other keys stay; a failed write still answers SUCCESS with the
// update in force, as Java does.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "broker_calls.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "namesrv_client.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::test::tools;

namespace {

// key=value from a GET_*_CONFIG body ("" when absent).
std::string valueIn(const std::string& body, const std::string& key) {
  auto at = ("\n" + body).find("\n" + key + "=");
  if (at == std::string::npos) return {};
  at += key.size() + 1;
  return body.substr(at, body.find('\n', at) - at);
}

std::string brokerConfig(TestClient& c, const DevNode& node) {
  auto resp = invoke(c, node.brokerAddr, request(RequestCode::GET_BROKER_CONFIG, {}));
  REQUIRE(resp.code == ResponseCode::SUCCESS);
  return resp.body;
}

// The text of `toml` between the `[table]` header and the next header.
std::string tableText(const std::string& toml, const std::string& table) {
  auto at = toml.find("[" + table + "]\n");
  REQUIRE_MESSAGE(at != std::string::npos, "no [" << table << "] in\n" << toml);
  auto end = toml.find("\n[", at + 1);
  return toml.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace

TEST_CASE("config file: rmqadmin updateBrokerConfig / updateNamesrvConfig survive a restart, comments kept") {
  DevNode node;
  node.replaceConfigLine("[broker]\n", "# broker settings: keep this comment\n[broker]\n");
  node.replaceConfigLine("enablePropertyFilter = true\n", "enablePropertyFilter = true   # SQL92 on\n");
  REQUIRE(node.start());
  // A key the file sets (replaced in place), a [broker] key it lacks, a [store] key it lacks.
  for (auto [key, value] : {std::pair{"enablePropertyFilter", "false"}, {"flushConsumerOffsetInterval", "7000"},
                            {"fileReservedTime", "96"}}) {
    auto r = admin(node, "updateBrokerConfig", {"-b", node.brokerAddr, "-k", key, "-v", value});
    REQUIRE_MESSAGE(r.exitCode == 0, describe(r));
  }
  auto ns = admin(node, "updateNamesrvConfig", {"-k", "orderMessageEnable", "-v", "true"});
  REQUIRE_MESSAGE(ns.exitCode == 0, describe(ns));

  std::string toml = node.proc.readFile("node.toml");
  CHECK(toml.find("# broker settings: keep this comment\n[broker]\n") != std::string::npos);
  CHECK(tableText(toml, "broker").find("enablePropertyFilter = false   # SQL92 on\n") != std::string::npos);
  CHECK(tableText(toml, "broker").find("\nflushConsumerOffsetInterval = 7000\n") != std::string::npos);
  CHECK(tableText(toml, "store").find("\nfileReservedTime = 96\n") != std::string::npos);
  CHECK(tableText(toml, "namesrv").find("\norderMessageEnable = true\n") != std::string::npos);
  CHECK(toml.find("enablePropertyFilter = true") == std::string::npos);

  REQUIRE(node.proc.stop() == 0);
  REQUIRE(node.start());
  TestClient c;
  auto cfg = brokerConfig(c, node);
  CHECK(valueIn(cfg, "enablePropertyFilter") == "false");
  CHECK(valueIn(cfg, "flushConsumerOffsetInterval") == "7000");
  CHECK(valueIn(cfg, "fileReservedTime") == "96");
  auto nsCfg = invoke(c, node.namesrvAddr, request(RequestCode::GET_NAMESRV_CONFIG, {}));
  CHECK(valueIn(nsCfg.body, "orderMessageEnable") == "true");
  CHECK(node.proc.readFile("node.toml") == toml);  // the restart itself wrote nothing
}

TEST_CASE("config file: UPDATE_NAMESRV_CONFIG edits a Java-style namesrv.properties in place") {
  NodeProcess proc;
  uint16_t port = freePort();
  std::string original =
      "# namesrv.properties, Java style\n"
      "logDir=" + proc.path("logs") + "\n"
      "bindAddress=127.0.0.1\n"
      "listenPort : " + std::to_string(port) + "\n"
      "kvConfigPath=" + proc.path("kv.json") + "\n"
      "! order topics off for now\n"
      "orderMessageEnable false\n";
  auto file = proc.writeFile("namesrv.properties", original);
  proc.setArgs({"--role=namesrv", "-c", file});
  proc.waitForPorts({port});
  REQUIRE_MESSAGE(proc.start(), proc.stderrText());
  std::string addr = "127.0.0.1:" + std::to_string(port);
  TestClient c;
  auto resp = invoke(c, addr, request(RequestCode::UPDATE_NAMESRV_CONFIG, {}, "orderMessageEnable=true\nbrokerExpiredMillis=60000\n"));
  REQUIRE(resp.code == ResponseCode::SUCCESS);
  CHECK(proc.readFile("namesrv.properties") ==
        "# namesrv.properties, Java style\n"
        "logDir=" + proc.path("logs") + "\n"
        "bindAddress=127.0.0.1\n"
        "listenPort : " + std::to_string(port) + "\n"
        "kvConfigPath=" + proc.path("kv.json") + "\n"
        "! order topics off for now\n"
        "orderMessageEnable true\n"
        "brokerExpiredMillis 60000\n");
  CHECK(proc.readFile("namesrv.properties.bak") == original);  // as Java's MixAll.string2File
  REQUIRE(proc.stop() == 0);
  REQUIRE_MESSAGE(proc.start(), proc.stderrText());
  TestClient again;
  auto cfg = invoke(again, addr, request(RequestCode::GET_NAMESRV_CONFIG, {}));
  CHECK(valueIn(cfg.body, "orderMessageEnable") == "true");
  CHECK(valueIn(cfg.body, "brokerExpiredMillis") == "60000");
  CHECK(proc.stop() == 0);
}

TEST_CASE("config file: a failed write (disk full) still answers SUCCESS, the update in force, the file untouched") {
  DevNode node;
  std::string flag = node.proc.path("disk-full.flag");
  node.proc.setEnv("RMQNODE_FAULT_ENOSPC", flag);
  REQUIRE(node.start());
  std::string before = node.proc.readFile("node.toml");
  node.proc.writeFile("disk-full.flag", "");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the flag is rechecked every 20 ms
  TestClient c;
  auto resp = invoke(c, node.brokerAddr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, "flushConsumerOffsetInterval=6000\n"));
  std::filesystem::remove(flag);
  CHECK(resp.code == ResponseCode::SUCCESS);
  CHECK(valueIn(brokerConfig(c, node), "flushConsumerOffsetInterval") == "6000");
  CHECK(node.proc.readFile("node.toml") == before);
  CHECK(node.brokerLog().find("could not write flushConsumerOffsetInterval=6000") != std::string::npos);
}

TEST_CASE("config file: UPDATE_BROKER_CONFIG edits a master's Java-style broker.properties in place") {
  Namesrv ns;
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  NodeProcess proc;
  uint16_t port = freeBrokerPort();
  std::string head =
      "# broker-a.properties, as a RocketMQ user writes it\n"
      "brokerClusterName=DefaultCluster\n"
      "brokerName=broker-a\n"
      "brokerId=0\n"
      "listenPort=" + std::to_string(port) + "\n"
      "namesrvAddr=" + ns.addr + "\n"
      "brokerIP1=127.0.0.1\n"
      "brokerIP2=127.0.0.1\n"
      "storePathRootDir=" + proc.path("store") + "\n"
      "mappedFileSizeCommitLog=67108864\n"
      "logDir=" + proc.path("logs") + "\n"
      "# persist consumer offsets every 5 s\n";
  auto file = proc.writeFile("broker-a.properties", head + "flushConsumerOffsetInterval=5000\n");
  proc.setArgs({"--role=master", "-c", file});
  proc.waitForPorts({port});
  REQUIRE_MESSAGE(proc.start(), proc.stderrText());
  std::string addr = "127.0.0.1:" + std::to_string(port);
  TestClient c;
  auto resp = invoke(c, addr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, "flushConsumerOffsetInterval=6000\nfileReservedTime=24\n"));
  REQUIRE(resp.code == ResponseCode::SUCCESS);
  CHECK(proc.readFile("broker-a.properties") == head + "flushConsumerOffsetInterval=6000\nfileReservedTime=24\n");
  REQUIRE(proc.stop() == 0);
  REQUIRE_MESSAGE(proc.start(), proc.stderrText());
  TestClient again;
  auto cfg = invoke(again, addr, request(RequestCode::GET_BROKER_CONFIG, {}));
  CHECK(valueIn(cfg.body, "flushConsumerOffsetInterval") == "6000");
  CHECK(valueIn(cfg.body, "fileReservedTime") == "24");
  CHECK(proc.stop() == 0);
}
