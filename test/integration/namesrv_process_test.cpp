// Name server process behaviour: KV config round trip and restart persistence, config
// updates, unknown codes, bad frames closing only their connection, bad config files,
// --print-config round trip.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>

#include "common/bytes.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "namesrv_client.h"
#include "node_process.h"
#include "raw_conn.h"

using namespace rmq;
using namespace rmq::test;
namespace RC = rmq::RequestCode;

TEST_CASE("namesrv: KV config round trip survives a restart") {
  Namesrv ns;
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  {
    TestClient c;
    REQUIRE(codeOf(c.call(ns.addr, RC::PUT_KV_CONFIG, {{"namespace", "ORDER_TOPIC_CONFIG"}, {"key", "T"}, {"value", "broker-a:4"}})) == 0);
    REQUIRE(codeOf(c.call(ns.addr, RC::PUT_KV_CONFIG, {{"namespace", "ns1"}, {"key", "k1"}, {"value", "v1"}})) == 0);
    REQUIRE(codeOf(c.call(ns.addr, RC::PUT_KV_CONFIG, {{"namespace", "ns1"}, {"key", "k2"}, {"value", "v2"}})) == 0);
    auto get = c.call(ns.addr, RC::GET_KV_CONFIG, {{"namespace", "ns1"}, {"key", "k1"}});
    REQUIRE(codeOf(get) == 0);
    CHECK(get->extFields.get("value") == "v1");
    REQUIRE(codeOf(c.call(ns.addr, RC::DELETE_KV_CONFIG, {{"namespace", "ns1"}, {"key", "k2"}})) == 0);
    CHECK(codeOf(c.call(ns.addr, RC::GET_KV_CONFIG, {{"namespace", "ns1"}, {"key", "k2"}})) == ResponseCode::QUERY_NOT_FOUND);
    CHECK(codeOf(c.call(ns.addr, RC::GET_KVLIST_BY_NAMESPACE, {{"namespace", "none"}})) == ResponseCode::QUERY_NOT_FOUND);
    CHECK(codeOf(c.call(ns.addr, RC::PUT_KV_CONFIG, {{"namespace", "ns1"}})) == ResponseCode::SYSTEM_ERROR);
    // A registering broker receives the ORDER_TOPIC_CONFIG namespace as a KVTable.
    auto reg = c.call(ns.addr, registerRequest("c1", "broker-a", 0, "127.0.0.1:30911", registerBody(1, {"T:4"})));
    REQUIRE(codeOf(reg) == 0);
    CHECK(reg->body == "{\"table\":{\"T\":\"broker-a:4\"}}");
  }
  CHECK(ns.node.readFile("namesrv/kvConfig.json") ==
        "{\"configTable\":{\"ORDER_TOPIC_CONFIG\":{\"T\":\"broker-a:4\"},\"ns1\":{\"k1\":\"v1\"}}}");
  REQUIRE(ns.node.stop() == 0);
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  TestClient c;
  auto list = c.call(ns.addr, RC::GET_KVLIST_BY_NAMESPACE, {{"namespace", "ns1"}});
  REQUIRE(codeOf(list) == 0);
  CHECK(list->body == "{\"table\":{\"k1\":\"v1\"}}");
  // Routes are memory-only: gone after the restart.
  CHECK(codeOf(c.call(ns.addr, RC::GET_ROUTEINFO_BY_TOPIC, {{"topic", "T"}})) == ResponseCode::TOPIC_NOT_EXIST);
  ns.node.stop();
}

TEST_CASE("namesrv: orderMessageEnable fills orderTopicConf; UPDATE/GET_NAMESRV_CONFIG") {
  Namesrv ns;
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  TestClient c;
  REQUIRE(codeOf(c.call(ns.addr, registerRequest("c1", "broker-a", 0, "127.0.0.1:30911", registerBody(1, {"Ord:4"})))) == 0);
  REQUIRE(codeOf(c.call(ns.addr, RC::PUT_KV_CONFIG, {{"namespace", "ORDER_TOPIC_CONFIG"}, {"key", "Ord"}, {"value", "broker-a:4"}})) == 0);
  auto route = c.call(ns.addr, RC::GET_ROUTEINFO_BY_TOPIC, {{"topic", "Ord"}});
  CHECK(route->body.find("orderTopicConf") == std::string::npos);

  auto bad = c.call(ns.addr, RC::UPDATE_NAMESRV_CONFIG, {}, "orderMessageEnable=maybe\n");
  CHECK(codeOf(bad) == ResponseCode::SYSTEM_ERROR);
  CHECK(bad->remark.value_or("").find("orderMessageEnable") != std::string::npos);
  CHECK(codeOf(c.call(ns.addr, RC::UPDATE_NAMESRV_CONFIG, {}, "kvConfigPath=/tmp/x\n")) == ResponseCode::NO_PERMISSION);
  REQUIRE(codeOf(c.call(ns.addr, RC::UPDATE_NAMESRV_CONFIG, {}, "orderMessageEnable=true\n")) == 0);
  route = c.call(ns.addr, RC::GET_ROUTEINFO_BY_TOPIC, {{"topic", "Ord"}});
  CHECK(route->body.find("\"orderTopicConf\":\"broker-a:4\"") != std::string::npos);
  auto cfg = c.call(ns.addr, RC::GET_NAMESRV_CONFIG);
  REQUIRE(codeOf(cfg) == 0);
  CHECK(cfg->body.find("orderMessageEnable=true\n") != std::string::npos);
  CHECK(cfg->body.find("listenPort=" + std::to_string(ns.port) + "\n") != std::string::npos);
  // Written into the -c file (Java: configStorePath = the -c file), not into configStorePath's own path.
  CHECK(ns.node.readFile("ns.toml").find("\norderMessageEnable = true\n") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(ns.node.path("namesrv/namesrv.properties")));
  ns.node.stop();
}

TEST_CASE("namesrv: unknown code answers 3; bad frames close only their own connection") {
  Namesrv ns;
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  TestClient c;
  auto unknown = c.call(ns.addr, 9999);
  CHECK(codeOf(unknown) == ResponseCode::REQUEST_CODE_NOT_SUPPORTED);

  // Garbage: a frame whose JSON header is not JSON.
  std::string garbage;
  putBE32(garbage, 4 + 6);
  putBE32(garbage, 6);
  garbage += "#$%^&*";
  CHECK(serverClosesAfter(ns.port, garbage));
  // Oversized: a length prefix above maxFrameSize (16 MiB).
  std::string huge;
  putBE32(huge, 64u * 1024 * 1024);
  putBE32(huge, 10);
  CHECK(serverClosesAfter(ns.port, huge));
  // The long-lived connection is unaffected, and new ones work.
  CHECK(codeOf(c.call(ns.addr, RC::GET_BROKER_CLUSTER_INFO)) == 0);
  TestClient fresh;
  CHECK(codeOf(fresh.call(ns.addr, RC::GET_ALL_TOPIC_LIST_FROM_NAMESERVER)) == 0);
  CHECK(ns.node.stop() == 0);
}

TEST_CASE("rmqnode: bad config exits 2 naming the key; --print-config parses back") {
  NodeProcess node;
  auto badToml = node.writeFile("bad.toml", "[namesrv]\nlistenPort = 99999\n");
  auto r = node.run({"--role=namesrv", "-c", badToml});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("listenPort") != std::string::npos);
  CHECK(r.err.find("[0, 65535]") != std::string::npos);

  auto badProps = node.writeFile("bad.properties", "listenPort=9876\nnoSuchKey=1\n");
  r = node.run({"--role=namesrv", "-c=" + badProps});  // commons-cli's -c=FILE spelling
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("unknown key 'noSuchKey'") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(node.path("logs")));  // nothing started

  r = node.run({"--role=namesrv,slave,master"});
  CHECK(r.exitCode == 2);
  r = node.run({});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("--role") != std::string::npos);

  auto props = node.writeFile("ns.properties", "# RocketMQ style\nlistenPort = 19999\norderMessageEnable=true\n");
  auto printed = node.run({"--role=namesrv", "-c", props, "--print-config"});
  REQUIRE(printed.exitCode == 0);
  CHECK(printed.out.find("listenPort = 19999") != std::string::npos);
  CHECK(printed.out.find("orderMessageEnable = true") != std::string::npos);
  auto again = node.writeFile("printed.toml", printed.out);
  auto reprinted = node.run({"--role=namesrv", "-c", again, "--print-config"});
  CHECK(reprinted.exitCode == 0);
  // The header (file name, keys taken from that file) differs; the effective config must not.
  auto body = [](const std::string& out) { return out.substr(out.find("\n\n")); };
  CHECK(body(reprinted.out) == body(printed.out));

  auto help = node.run({"--help"});
  CHECK(help.exitCode == 0);
  CHECK(help.out.find("--print-config") != std::string::npos);
}

TEST_CASE("rmqnode: a RocketMQ namesrv.properties starts the name server, Java-only keys warned about; a busy port exits 1") {
  NodeProcess first;
  uint16_t port = freePort();
  auto props = first.writeFile("namesrv.properties",
                               "# namesrv.properties as shipped with RocketMQ\nrocketmqHome=/opt/rocketmq\n"
                               "listenPort = " + std::to_string(port) + " \nbindAddress=127.0.0.1\n"
                               "logDir=" + first.path("logs") + "\n"
                               "# 名字服务的 Netty 设置 (a UTF-8 comment)\n"
                               "serverWorkerThreads=8\nclusterTest=false\nserverSocketSndBufSize=65535\n");
  first.setArgs({"--role=namesrv", "-c", props});
  first.waitForPorts({port});
  REQUIRE_MESSAGE(first.start(), first.stderrText());
  // The port accepts a moment before the start-up line is written.
  CHECK(eventually([&] { return first.log("namesrv.log").find("ready in") != std::string::npos; },
                   std::chrono::seconds(5)));
  auto startLine = first.log("namesrv.log");
  CHECK(startLine.find("role=namesrv ports=namesrv:" + std::to_string(port)) != std::string::npos);
  CHECK(startLine.find("config=" + props) != std::string::npos);
  CHECK(startLine.find("ready in") != std::string::npos);
  // Java keys with no meaning here: one warning each, with the line and the reason.
  CHECK(startLine.find("config: clusterTest ignored (" + props + ":8): NamesrvConfig key;") != std::string::npos);
  CHECK(startLine.find("config: serverSocketSndBufSize ignored (" + props + ":9): NettyServerConfig key;") !=
        std::string::npos);
  CHECK(startLine.find("serverWorkerThreads ignored") == std::string::npos);  // the name server uses it

  NodeProcess second;
  auto r = second.run({"--role=namesrv", "-c", props});
  CHECK(r.exitCode == 1);
  CHECK(r.err.find(std::to_string(port)) != std::string::npos);

  TestClient c;
  CHECK(codeOf(c.call("127.0.0.1:" + std::to_string(port), RC::GET_BROKER_CLUSTER_INFO)) == 0);
  CHECK(first.stop() == 0);
}
