// A RocketMQ user's own config files: every 4.x key is known (taken or ignored with a reason), the
// files Apache RocketMQ ships load, values parse as Java parses them, typos get a suggestion.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "config/config_loader.h"
#include "config/config_printer.h"
#include "config/ignored_keys.h"
#include "config/key_suggestion.h"
#include "config/process_config.h"
#include "config/tls_config.h"
#include "roles/broker/broker_config.h"
#include "roles/namesrv/namesrv_config.h"
#include "seed_configs.h"
#include "store/store_config.h"

using namespace rmq;
using namespace rmq::config;
using rmq::test::seedConfigDir;
using rmq::test::withCommentedKeysOn;
namespace fs = std::filesystem;

namespace {

const fs::path kJavaConf = fs::path(RMQ_TEST_DIR) / "unit/config/java-conf";

// The config structs of a broker process, as rmqnode's Node builds them.
struct BrokerSide {
  ProcessConfig process;
  TlsConfig tls;
  broker::BrokerConfig broker;
  store::StoreConfig store;
  std::vector<ConfigSection> sections() {
    return {section("process", process), section("tls", tls), section("broker", broker), section("store", store)};
  }
};

struct NamesrvSide {
  ProcessConfig process;
  TlsConfig tls;
  namesrv::NamesrvConfig namesrv;
  std::vector<ConfigSection> sections() {
    return {section("process", process), section("tls", tls), section("namesrv", namesrv)};
  }
};

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// class -> keys, from rocketmq-4.x-keys.txt.
std::map<std::string, std::vector<std::string>> javaKeys() {
  std::map<std::string, std::vector<std::string>> out;
  std::istringstream in(readText(kJavaConf / "rocketmq-4.x-keys.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string cls, key;
    words >> cls >> key;
    out[cls].push_back(key);
  }
  return out;
}

bool contains(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

const IgnoredEntry* ignoredEntry(const ApplyReport& r, std::string_view key) {
  for (const auto& i : r.ignored) if (i.key == key) return &i;
  return nullptr;
}

}  // namespace

TEST_CASE("every key of RocketMQ 4.x's config classes is taken or ignored with a reason, by each role") {
  auto keys = javaKeys();
  REQUIRE(keys.size() == 5);
  BrokerSide b;
  NamesrvSide n;
  auto brokerFields = fieldKeys(b.sections());
  auto namesrvFields = fieldKeys(n.sections());
  const std::map<std::string, std::vector<std::string>> classesOf = {
      {"broker", {"BrokerConfig", "MessageStoreConfig", "NettyServerConfig", "NettyClientConfig"}},
      {"namesrv", {"NamesrvConfig", "NettyServerConfig"}}};
  size_t checked = 0;
  for (const auto& [role, classes] : classesOf) {
    const auto& fields = role == "broker" ? brokerFields : namesrvFields;
    for (const auto& cls : classes) {
      REQUIRE_MESSAGE(!keys[cls].empty(), cls);
      for (const auto& key : keys[cls]) {
        INFO(role, ": ", cls, ".", key);
        CHECK((contains(fields, key) || findIgnoredKey(key) != nullptr));
        ++checked;
      }
    }
  }
  CHECK(checked > 200);
  // The 4.4 spellings take effect.
  CHECK(contains(brokerFields, "mapedFileSizeCommitLog"));
  CHECK(contains(brokerFields, "mapedFileSizeConsumeQueue"));
}

TEST_CASE("the ignored-keys table: one entry per key, each with a reason, none implemented by every role") {
  BrokerSide b;
  NamesrvSide n;
  auto brokerFields = fieldKeys(b.sections());
  auto namesrvFields = fieldKeys(n.sections());
  std::vector<std::string> seen;
  for (const auto& k : ignoredKeys()) {
    INFO(k.key);
    CHECK(!contains(seen, k.key));
    seen.emplace_back(k.key);
    CHECK(!k.reason.empty());
    CHECK(!k.origin.empty());
    // An entry both roles implement could never apply: the field would always win.
    CHECK(!(contains(brokerFields, k.key) && contains(namesrvFields, k.key)));
  }
}

TEST_CASE("Apache RocketMQ 4.9's distribution/conf files load; the DLedger ones are refused clearly") {
  size_t loaded = 0, refused = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kJavaConf)) {
    auto ext = entry.path().extension();
    if (ext != ".conf" && ext != ".properties") continue;
    INFO(entry.path().string());
    BrokerSide b;
    auto r = loadConfigFile(entry.path().string(), b.sections());
    if (entry.path().parent_path().filename() == "dledger") {
      REQUIRE(!r);
      CHECK(r.error().message.find("DLedger mode is not supported") != std::string::npos);
      CHECK(r.error().message.find(entry.path().string() + ":") != std::string::npos);
      ++refused;
      continue;
    }
    REQUIRE_MESSAGE(r, (r ? std::string() : r.error().message));
    bool slave = entry.path().stem().string().ends_with("-s");
    CHECK(b.store.brokerRole == (slave ? "SLAVE" : entry.path().parent_path().filename() == "2m-2s-sync"
                                                       ? "SYNC_MASTER" : "ASYNC_MASTER"));
    CHECK(b.broker.brokerId == (slave ? 1 : 0));
    CHECK(r->ignored.empty());
    ++loaded;
  }
  CHECK(loaded == 12);
  CHECK(refused == 3);
}

TEST_CASE("the seed broker configs load with their commented keys switched on; paths are honoured") {
  for (std::string name : {"broker-a.properties", "broker-a-s.properties", "broker-b.properties", "broker-b-s.properties"}) {
    INFO(name);
    auto text = readText(seedConfigDir() / name);
    REQUIRE(!text.empty());
    auto entries = parseProperties(withCommentedKeysOn(text), name);
    REQUIRE(entries);
    BrokerSide b;
    auto r = applyConfig(*entries, b.sections());
    REQUIRE_MESSAGE(r, (r ? std::string() : r.error().message));
    CHECK(b.broker.brokerClusterName == "rocketmq-cluster");
    CHECK(b.broker.namesrvList().size() == 4);
    CHECK(b.broker.checkNamesrvAddr());  // host names are fine: resolved when connecting
    CHECK(b.store.mappedFileSizeCommitLog == 1073741824);
    CHECK(b.store.cqFileSize() == 300000);
    CHECK(b.store.maxMessageSize == 65536);
    CHECK(b.store.consumeQueueDir() == "/home/ocmuser/rocketmq-test/rocketmq/store/consumequeue");
    CHECK(b.store.indexDir() == "/home/ocmuser/rocketmq-test/rocketmq/store/index");
    CHECK(b.store.checkpointPath() == "/home/ocmuser/rocketmq-test/rocketmq/store/checkpoint");
    CHECK(b.store.abortPath() == "/home/ocmuser/rocketmq-test/rocketmq/store/abort");
    for (auto key : {"destroyMapedFileIntervalForcibly", "redeleteHangedFileInterval", "checkTransactionMessageEnable",
                     "sendMessageThreadPoolNums", "pullMessageThreadPoolNums"}) {
      INFO(key);
      auto i = ignoredEntry(*r, key);
      REQUIRE(i != nullptr);
      CHECK(i->origin.starts_with(std::string(name) + ":"));
      CHECK(!i->reason.empty());
    }
    CHECK(r->ignored.size() == 5);
    CHECK(ignoredEntry(*r, "sendMessageThreadPoolNums")->origin == std::string(name) + ":58");
  }
}

TEST_CASE("a key no RocketMQ version knows is an error with a did-you-mean suggestion, file and line") {
  BrokerSide b;
  auto entries = parseProperties("brokerName=a\nbrokerRoel=SLAVE\nsendMessageThreadPoolNum=4\nzz=1\n", "b.conf");
  REQUIRE(entries);
  auto r = applyConfig(*entries, b.sections());
  REQUIRE(!r);
  const auto& msg = r.error().message;
  CHECK(msg.find("config error at b.conf:2: unknown key 'brokerRoel' (did you mean 'brokerRole'?)") != std::string::npos);
  CHECK(msg.find("b.conf:3: unknown key 'sendMessageThreadPoolNum' (did you mean 'sendMessageThreadPoolNums'?)") !=
        std::string::npos);
  CHECK(msg.find("b.conf:4: unknown key 'zz'\n") == std::string::npos);  // last line, no suggestion
  CHECK(msg.ends_with("b.conf:4: unknown key 'zz'"));
  CHECK(b.broker.brokerName.empty());  // nothing written
}

TEST_CASE("edit distance counts an adjacent swap as one edit and ignores case") {
  CHECK(editDistance("brokerRoel", "brokerRole") == 1);
  CHECK(editDistance("LISTENPORT", "listenPort") == 0);
  CHECK(editDistance("abc", "") == 3);
  CHECK(editDistance("kitten", "sitting") == 3);
  CHECK(closestKey("flushDiskTyp", {"flushDiskType", "flushIntervalCommitLog"}) == "flushDiskType");
  CHECK(!closestKey("ab", {"listenPort"}));
}

TEST_CASE("values as Java reads them: blanks around numbers, boolean case, continuations, escapes, UTF-8") {
  BrokerSide b;
  std::string text =
      "\xEF\xBB\xBF# 所属集群名字 (a UTF-8 comment)\n"
      "brokerClusterName = rocketmq-cluster   \n"
      "listenPort=  10921  \n"
      "brokerId = 0\t\n"
      "autoCreateTopicEnable=FALSE\n"
      "slaveReadEnable = True \n"
      "namesrvAddr=ns1.example:9876;\\\n"
      "            ns2.example:9876\n"
      "brokerName=broker-\\u00e9\\uD83D\\uDE00\n"
      "storePathRootDir=/data/rmq\\\\store\n";
  auto entries = parseProperties(text, "u.properties");
  REQUIRE(entries);
  auto r = applyConfig(*entries, b.sections());
  REQUIRE_MESSAGE(r, (r ? std::string() : r.error().message));
  CHECK(b.broker.brokerClusterName == "rocketmq-cluster");
  CHECK(b.broker.listenPort == 10921);
  CHECK(!b.broker.autoCreateTopicEnable);
  CHECK(b.broker.slaveReadEnable);
  CHECK(b.broker.namesrvList() == std::vector<std::string>{"ns1.example:9876", "ns2.example:9876"});
  CHECK(b.broker.brokerName == "broker-\xC3\xA9\xF0\x9F\x98\x80");
  CHECK(b.store.storePathRootDir == "/data/rmq\\store");
  CHECK(r->ignored.empty());
}

TEST_CASE("namesrvAddr: host:port items separated by ';'; a malformed item is refused at start-up") {
  broker::BrokerConfig c;
  c.namesrvAddr = "localhost:9876; 10.0.0.2:9876 ;nameserver-3:9877";
  CHECK(c.checkNamesrvAddr());
  for (auto bad : {"localhost", ":9876", "host:", "host:x", "host:70000", "a:1;b"}) {
    INFO(bad);
    c.namesrvAddr = bad;
    auto r = c.checkNamesrvAddr();
    REQUIRE(!r);
    CHECK(r.error().message.find("is not host:port") != std::string::npos);
  }
}

TEST_CASE("DLedger keys: accepted and ignored while DLedger is off, refused when it is on") {
  BrokerSide off;
  auto r = applyPropertiesText("enableDLegerCommitLog=false\ndLegerGroup=g\ndLegerPeers=n0-127.0.0.1:40911\n",
                               off.sections());
  REQUIRE_MESSAGE(r, (r ? std::string() : r.error().message));
  CHECK(r->empty());
  BrokerSide on;
  auto refused = applyPropertiesText("enableDLegerCommitLog = TRUE \n", on.sections());
  REQUIRE(!refused);
  CHECK(refused.error().message.find("DLedger mode is not supported") != std::string::npos);
}

TEST_CASE("a TOML config may use the same RocketMQ keys: taken, ignored, refused and suggested alike") {
  BrokerSide b;
  auto entries = parseToml("[broker]\nbrokerName = \"x\"\nsendMessageThreadPoolNums = 128\n"
                           "[store]\nstorePathConsumeQueue = \"/cq\"\ntransientStorePoolEnable = true\n",
                           "b.toml");
  REQUIRE(entries);
  auto r = applyConfig(*entries, b.sections());
  REQUIRE_MESSAGE(r, (r ? std::string() : r.error().message));
  CHECK(b.broker.brokerName == "x");
  CHECK(b.store.consumeQueueDir() == "/cq");
  REQUIRE(r->ignored.size() == 2);
  CHECK(r->ignored[0].key == "sendMessageThreadPoolNums");
  CHECK(r->ignored[0].origin == "b.toml:3");
  CHECK(r->ignored[1].reason.find("transient store pool") != std::string::npos);

  auto typo = parseToml("brokerRoel = \"SLAVE\"\n", "t.toml");
  REQUIRE(typo);
  auto t = applyConfig(*typo, b.sections());
  REQUIRE(!t);
  CHECK(t.error().message.find("t.toml:1: unknown key 'brokerRoel' (did you mean 'brokerRole'?)") != std::string::npos);

  // A real key under the wrong table names its table instead of suggesting itself.
  auto misplaced = parseToml("[broker]\nbrokerName = \"x\"\nhttpListenPort = 8081\n", "m.toml");
  REQUIRE(misplaced);
  auto m = applyConfig(*misplaced, b.sections());
  REQUIRE(!m);
  CHECK(m.error().message.find("m.toml:3: key 'httpListenPort' is not a [broker] key; it belongs in [process] "
                               "(or at the top level)") != std::string::npos);
  CHECK(m.error().message.find("did you mean") == std::string::npos);

  auto dledger = parseToml("enableDLegerCommitLog = true\n", "d.toml");
  REQUIRE(dledger);
  auto d = applyConfig(*dledger, b.sections());
  REQUIRE(!d);
  CHECK(d.error().message.find("DLedger mode is not supported") != std::string::npos);
}

TEST_CASE("a RocketMQ namesrv.properties: name-server keys taken, Netty and test-environment keys ignored") {
  NamesrvSide n;
  auto entries = parseProperties("listenPort=19876\nserverWorkerThreads=8\nkvConfigPath=/kv/kvConfig.json\n"
                                 "orderMessageEnable=true\nclusterTest=false\nproductEnvName=center\n"
                                 "serverSocketSndBufSize=65535\nuseEpollNativeSelector=true\nrocketmqHome=/opt/rmq\n",
                                 "namesrv.properties");
  REQUIRE(entries);
  auto r = applyConfig(*entries, n.sections());
  REQUIRE_MESSAGE(r, (r ? std::string() : r.error().message));
  CHECK(n.namesrv.listenPort == 19876);
  CHECK(n.namesrv.serverWorkerThreads == 8);
  CHECK(n.namesrv.kvConfigPath == "/kv/kvConfig.json");
  CHECK(n.namesrv.orderMessageEnable);
  CHECK(n.namesrv.rocketmqHome == "/opt/rmq");
  std::vector<std::string> ignored;
  for (const auto& i : r->ignored) ignored.push_back(i.key);
  CHECK(ignored == std::vector<std::string>{"clusterTest", "productEnvName", "serverSocketSndBufSize",
                                            "useEpollNativeSelector"});
  // The same Netty key configures the name server but is ignored, with its reason, by a broker.
  BrokerSide b;
  auto br = applyPropertiesText("serverWorkerThreads=8\n", b.sections());
  REQUIRE(br);
  CHECK(br->empty());
}

TEST_CASE("--print-config's report lists the keys taken and each ignored key with origin and reason") {
  ApplyReport report;
  report.written = {"brokerName", "listenPort"};
  report.ignored = {{"sendMessageThreadPoolNums", "b.conf:58", "BrokerConfig key; thread pool"}};
  auto text = renderApplyReport(report, "b.conf");
  CHECK(text.find("# config file: b.conf\n") != std::string::npos);
  CHECK(text.find("# taken (2 keys): brokerName, listenPort\n") != std::string::npos);
  CHECK(text.find("#   sendMessageThreadPoolNums (b.conf:58): BrokerConfig key; thread pool\n") != std::string::npos);
  // Comments only: the printed config still parses as TOML.
  CHECK(parseToml(text, "x.toml"));
}

TEST_CASE("values Java clamps at use are clamped with a warning, not refused; other bounds still refuse") {
  BrokerSide b;
  auto text = "diskMaxUsedSpaceRatio=99\nregisterNameServerPeriod=5000\nregisterBrokerTimeoutMills=0\n";
  auto entries = parseProperties(text, "broker-a.properties");
  REQUIRE(entries);
  auto r = applyConfig(entries.value(), b.sections());
  REQUIRE_MESSAGE(r, (r ? std::string() : r.error().message));
  CHECK(b.store.diskMaxUsedSpaceRatio == 95);
  CHECK(b.broker.registerNameServerPeriod == 10000);
  CHECK(b.broker.registerBrokerTimeoutMills == 1);
  REQUIRE(r->clamped.size() == 3);
  CHECK(r->clamped[2] == "config at broker-a.properties:1: key 'diskMaxUsedSpaceRatio': 99 is outside [10, 95]; "
                         "using 95 as Apache RocketMQ does");
  CHECK(renderApplyReport(*r, "broker-a.properties").find("# clamped: config at broker-a.properties:2: key "
                                                           "'registerNameServerPeriod': 5000 is outside") !=
        std::string::npos);
  BrokerSide low;
  REQUIRE(applyPropertiesText("diskMaxUsedSpaceRatio=3\nregisterNameServerPeriod=600000\nregisterBrokerTimeoutMills=120000\n",
                              low.sections()));
  CHECK(low.store.diskMaxUsedSpaceRatio == 10);
  CHECK(low.broker.registerNameServerPeriod == 60000);
  CHECK(low.broker.registerBrokerTimeoutMills == 120000);  // any positive value, as Java
  BrokerSide bad;
  CHECK_FALSE(applyPropertiesText("diskMaxUsedSpaceRatio=abc\n", bad.sections()));  // not a number: still an error
  CHECK_FALSE(applyPropertiesText("diskSpaceWarningLevelRatio=200\n", bad.sections()));  // no clamp declared
}
