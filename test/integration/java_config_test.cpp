// A RocketMQ user's own config files start rmqnode: the seed 2m-2s broker files (paths, hosts and
// the port substituted, commented keys switched on) start the master and slave roles; RocketMQ keys
// rmqnode does not use are warned about, typos and DLedger are refused with a clear message; a TOML
// using RocketMQ keys behaves alike. (A RocketMQ namesrv.properties: namesrv_process_test.cpp.)
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "broker_calls.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "namesrv_client.h"
#include "seed_configs.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

void replaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
  }
}

// One seed file made runnable here: its store paths moved into the node's temp dir (the consume
// queue, index, checkpoint and abort file deliberately apart from the root, to see them honoured),
// the four name-server addresses replaced in turn by those of `namesrvs`, listenPort on a free port, and the
// broker's own address and log dir on loopback / in the temp dir.
struct SeedBroker {
  NodeProcess proc;
  uint16_t port = freeBrokerPort();  // the master binds port + 1 (HA) too
  std::string file;

  SeedBroker(const std::string& seedName, const std::string& role, const std::vector<std::string>& namesrvs) {
    std::string text = withCommentedKeysOn(readWholeFile((seedConfigDir() / seedName).string()));
    REQUIRE_MESSAGE(!text.empty(), "seed config missing: " << (seedConfigDir() / seedName).string());
    const std::string root = "/home/ocmuser/rocketmq-test/rocketmq/store";
    replaceAll(text, root + "/consumequeue", proc.path("cq"));
    replaceAll(text, root + "/index", proc.path("idx"));
    replaceAll(text, root + "/checkpoint", proc.path("meta/checkpoint"));
    replaceAll(text, root + "/abort", proc.path("meta/abort"));
    replaceAll(text, root, proc.path("store"));
    for (size_t i = 0; i < 4; ++i) {
      replaceAll(text, "rocketmq-nameserver" + std::to_string(i + 1) + ":9876", namesrvs[i % namesrvs.size()]);
    }
    replaceAll(text, "listenPort=10911", "listenPort=" + std::to_string(port));
    text += "brokerIP1=127.0.0.1\nlogDir=" + proc.path("logs") + "\n";
    file = proc.writeFile(seedName, text);
    proc.setArgs({"--role=" + role, "-c", file});
    proc.waitForPorts({port});
  }
  std::string addr() const { return "127.0.0.1:" + std::to_string(port); }
  bool start() {
    if (proc.start(30s)) return true;
    MESSAGE("rmqnode did not start: " << proc.stderrText());
    return false;
  }
};

// brokerAddrs of `brokerName` in the name server's cluster info ("" when absent).
std::string registeredAddrs(TestClient& c, const std::string& ns, const std::string& cluster,
                            const std::string& brokerName) {
  auto info = c.call(ns, RequestCode::GET_BROKER_CLUSTER_INFO);
  if (!info || info->code != 0) return "";
  auto doc = parseJson(info->body);
  if (!doc.IsObject() || !doc.HasMember("clusterAddrTable") || !doc["clusterAddrTable"].HasMember(cluster.c_str()))
    return "";
  const auto& broker = doc["brokerAddrTable"][brokerName.c_str()];
  if (!broker.IsObject()) return "";
  std::string out;
  for (auto& m : broker["brokerAddrs"].GetObject()) out += std::string(m.name.GetString()) + "=" + m.value.GetString() + ";";
  return out;
}

}  // namespace

TEST_CASE("seed master configs (SYNC_MASTER broker-a, ASYNC_MASTER broker-b) start a master that serves") {
  Namesrv ns;
  REQUIRE(ns.node.start());
  // A host name, resolved when the broker connects, not at start-up.
  const std::string nsByName = "localhost:" + std::to_string(ns.port);
  for (std::string name : {"broker-a", "broker-b"}) {
    INFO(name);
    SeedBroker b(name + ".properties", "master", {nsByName});
    REQUIRE(b.start());
    TestClient nc;
    CHECK(eventually([&] { return registeredAddrs(nc, ns.addr, "rocketmq-cluster", name) == "0=" + b.addr() + ";"; },
                     20s));

    TestClient c;
    createTopic(c, b.addr(), "SeedT", 4);  // autoCreateTopicEnable=false in these files
    // broker-a is a SYNC_MASTER without a slave: as in Java, the message is stored and the answer
    // is SLAVE_NOT_AVAILABLE; broker-b (ASYNC_MASTER) answers SUCCESS.
    auto sent = invoke(c, b.addr(), sendRequest({.topic = "SeedT", .body = "from a migrated config", .keys = "k1"}));
    CHECK(sent.code == (name == "broker-a" ? ResponseCode::SLAVE_NOT_AVAILABLE : ResponseCode::SUCCESS));
    REQUIRE(dispatched(c, b.addr(), "SeedT", 0, 1));
    // autoCreateSubscriptionGroup=false is taken: a pull needs the group created first.
    PullSpec pull{.group = "seed_cg", .topic = "SeedT"};
    CHECK(invoke(c, b.addr(), pullRequest(pull)).code == ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST);
    REQUIRE(invoke(c, b.addr(), request(RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, {},
                                                    R"({"groupName":"seed_cg"})")).code == 0);
    auto pulled = pullMessages(c, b.addr(), {.group = "seed_cg", .topic = "SeedT"});
    REQUIRE(pulled.size() == 1);
    CHECK(pulled[0].body == "from a migrated config");

    // storePathConsumeQueue, storePathIndex, storeCheckpoint and abortFile are honoured.
    CHECK(fs::is_directory(b.proc.path("cq/SeedT/0")));
    CHECK(fs::exists(b.proc.path("meta/abort")));
    CHECK(eventually([&] { return fs::is_directory(b.proc.path("idx")) && !fs::is_empty(b.proc.path("idx")); }, 10s));
    CHECK(!fs::exists(b.proc.path("store/consumequeue")));
    CHECK(fs::is_directory(b.proc.path("store/commitlog")));

    // One warning line per ignored key, with the file line and the reason.
    auto log = b.proc.log("broker.log");
    CHECK(log.find("config: sendMessageThreadPoolNums ignored (" + b.file + ":58): BrokerConfig key; ") !=
          std::string::npos);
    CHECK(log.find("config: checkTransactionMessageEnable ignored (" + b.file + ":56)") != std::string::npos);

    CHECK(b.proc.stop() == 0);
    CHECK(fs::exists(b.proc.path("meta/checkpoint")));
    CHECK(!fs::exists(b.proc.path("meta/abort")));  // clean shutdown
  }
}

TEST_CASE("seed slave configs (brokerRole=SLAVE, brokerId=1) start the slave role, which answers") {
  Namesrv ns;
  REQUIRE(ns.node.start());
  for (std::string name : {"broker-a-s", "broker-b-s"}) {
    INFO(name);
    // A name server whose host name does not resolve: the broker starts anyway and registers with
    // the others (names are resolved when connecting, as Java does).
    SeedBroker b(name + ".properties", "slave", {"rocketmq-nameserver-gone.invalid:9876", ns.addr});
    REQUIRE(b.start());
    // Registered under its master's broker name with its own id.
    const std::string brokerName = name.substr(0, name.size() - 2);
    TestClient nc;
    CHECK(eventually(
        [&] { return registeredAddrs(nc, ns.addr, "rocketmq-cluster", brokerName) == "1=" + b.addr() + ";"; }, 20s));
    TestClient c;
    auto info = c.call(b.addr(), request(RequestCode::GET_BROKER_RUNTIME_INFO, {}));
    REQUIRE(info.ok());
    CHECK(info->code == 0);
    // --role wins over the file's brokerRole (issue 25: as mqbroker takes the file's role, --role
    // overrides it): a master, with a warning that names the replacement.
    auto overridden = b.proc.run({"--role=master", "-c", b.file, "--print-config"});
    CHECK(overridden.exitCode == 0);
    CHECK(overridden.out.find("brokerRole = \"ASYNC_MASTER\"") != std::string::npos);
    CHECK(b.proc.stop() == 0);
  }
}

TEST_CASE("--print-config on a RocketMQ file shows the keys taken and the keys ignored with their reasons") {
  SeedBroker b("broker-a.properties", "master", {"127.0.0.1:9876"});
  auto r = b.proc.run({"--role=master", "-c", b.file, "--print-config"});
  REQUIRE_MESSAGE(r.exitCode == 0, r.err);
  CHECK(r.out.find("# taken (") != std::string::npos);
  CHECK(r.out.find("storePathConsumeQueue") != std::string::npos);
  CHECK(r.out.find("#   pullMessageThreadPoolNums (" + b.file + ":60): BrokerConfig key; size of a Java thread pool") !=
        std::string::npos);
  CHECK(r.out.find("#   redeleteHangedFileInterval (" + b.file + ":26): MessageStoreConfig key;") != std::string::npos);
  CHECK(r.out.find("storePathConsumeQueue = \"" + b.proc.path("cq") + "\"") != std::string::npos);
  CHECK(r.out.find("mappedFileSizeCommitLog = 1073741824") != std::string::npos);
}

TEST_CASE("a typo in a RocketMQ key stops start-up with the suggestion, file and line; DLedger is refused") {
  NodeProcess p;
  auto typo = p.writeFile("broker.conf", "brokerClusterName = DefaultCluster\nbrokerRoel = ASYNC_MASTER\n");
  auto r = p.run({"--role=master", "-c", typo});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find("config error at " + typo + ":2: unknown key 'brokerRoel' (did you mean 'brokerRole'?)") !=
        std::string::npos);

  auto dledger = p.writeFile("broker-n0.conf", "brokerName=RaftNode00\nenableDLegerCommitLog=true\n"
                                               "dLegerGroup=RaftNode00\ndLegerSelfId=n0\n");
  auto d = p.run({"--role=master", "-c", dledger});
  CHECK(d.exitCode == 2);
  CHECK(d.err.find("DLedger mode is not supported") != std::string::npos);

  auto badAddr = p.writeFile("addr.conf", "namesrvAddr=nameserver1;127.0.0.1:9876\n");
  auto a = p.run({"--role=master", "-c", badAddr});
  CHECK(a.exitCode == 2);
  CHECK(a.err.find("namesrvAddr: 'nameserver1' is not host:port") != std::string::npos);
}

TEST_CASE("rmqnode -c with a TOML using RocketMQ keys: 4.4 spellings taken, paths honoured, the rest warned about") {
  // [broker]: a Java thread-pool key; [store]: the 4.4 spelling of the consume queue file size, a
  // consume queue directory apart from the root and a Java-only key.
  DevNode node({.extraBroker = "sendMessageThreadPoolNums = 16\nautoCreateTopicEnable = false\n",
                .extraStore = "mapedFileSizeConsumeQueue = 6000\nstorePathConsumeQueue = \"CQ\"\ntransientStorePoolEnable = true\n"});
  auto toml = node.proc.readFile("node.toml");
  replaceAll(toml, "\"CQ\"", "\"" + node.proc.path("cq") + "\"");
  node.proc.writeFile("node.toml", toml);
  auto printed = node.proc.run({"--role=namesrv,master", "-c", node.proc.path("node.toml"), "--print-config"});
  REQUIRE_MESSAGE(printed.exitCode == 0, printed.err);
  CHECK(printed.out.find("mappedFileSizeConsumeQueue = 6000") != std::string::npos);
  CHECK(printed.out.find("#   transientStorePoolEnable (" + node.proc.path("node.toml") + ":") != std::string::npos);

  REQUIRE(node.start());
  TestClient c;
  createTopic(c, node.brokerAddr, "TomlT", 1);
  sendOk(c, node.brokerAddr, {.topic = "TomlT", .body = "toml"});
  REQUIRE(dispatched(c, node.brokerAddr, "TomlT", 0, 1));
  CHECK(fs::file_size(node.proc.path("cq/TomlT/0/00000000000000000000")) == 6000);
  CHECK(!fs::exists(node.proc.path("store/consumequeue")));
  auto log = node.brokerLog();
  CHECK(log.find("config: sendMessageThreadPoolNums ignored (" + node.proc.path("node.toml") + ":") != std::string::npos);
  CHECK(log.find("config: transientStorePoolEnable ignored (") != std::string::npos);
  CHECK(node.proc.stop() == 0);

  // A typo in the TOML is refused like one in a .properties file.
  auto typo = node.proc.writeFile("typo.toml", "[store]\nbrokerRoel = \"SLAVE\"\n");
  auto r = node.proc.run({"--role=master", "-c", typo});
  CHECK(r.exitCode == 2);
  CHECK(r.err.find(typo + ":2: unknown key 'brokerRoel' (did you mean 'brokerRole'?)") != std::string::npos);
}
