// Metadata managers: JSON shapes of §6.8 / §3.2, file round trips, .bak fallback, auto-create.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/file_write.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"

using namespace rmq::broker;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("rmq_admin_ut_" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string str() const { return path.string(); }
};

std::string readFile(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TopicConfigManagerOptions opts(const std::string& dir, bool autoCreate = true) {
  TopicConfigManagerOptions o;
  o.configDir = dir;
  o.clusterName = "DefaultCluster";
  o.brokerName = "broker-a";
  o.autoCreateTopicEnable = autoCreate;
  return o;
}

}  // namespace

TEST_CASE("topics.json has the fastjson pretty shape of §6.8") {
  TempDir dir;
  TopicConfigManager m(opts(dir.str()));
  TopicConfig c;
  c.topicName = "TopicTest";
  c.readQueueNums = c.writeQueueNums = 4;
  m.updateTopicConfig(c);
  std::string text = readFile(dir.path / "topics.json");
  CHECK(text.find("\"TopicTest\":{\n\t\t\t\"order\":false,\n\t\t\t\"perm\":6,\n\t\t\t\"readQueueNums\":4,\n"
                  "\t\t\t\"topicFilterType\":\"SINGLE_TAG\",\n\t\t\t\"topicName\":\"TopicTest\",\n"
                  "\t\t\t\"topicSysFlag\":0,\n\t\t\t\"writeQueueNums\":4\n\t\t}") != std::string::npos);
  CHECK(text.starts_with("{\n\t\"dataVersion\":{\n\t\t\"counter\":1,\n\t\t\"timestamp\":"));
  // Compact body for GET_ALL_TOPIC_CONFIG.
  std::string body = m.encode(false);
  CHECK(body.find("\"TopicTest\":{\"order\":false,\"perm\":6,\"readQueueNums\":4,") != std::string::npos);
  CHECK(body.find('\n') == std::string::npos);
}

TEST_CASE("topics survive a reload and fall back to .bak") {
  TempDir dir;
  {
    TopicConfigManager m(opts(dir.str()));
    TopicConfig c;
    c.topicName = "T1";
    c.perm = 4;
    c.order = true;
    c.topicFilterType = TopicFilterType::MultiTag;
    m.updateTopicConfig(c);
    c.topicName = "T2";
    m.updateTopicConfig(c);
  }
  {
    TopicConfigManager m(opts(dir.str()));
    REQUIRE(m.load());
    auto t1 = m.find("T1");
    REQUIRE(t1);
    CHECK(t1->perm == 4);
    CHECK(t1->order);
    CHECK(t1->topicFilterType == TopicFilterType::MultiTag);
    CHECK(m.dataVersion().counter == 2);
  }
  // Corrupt main file: .bak (the previous content, without T2) is used.
  { std::ofstream(dir.path / "topics.json") << "{garbage"; }
  TopicConfigManager m(opts(dir.str()));
  REQUIRE(m.load());
  CHECK(m.find("T1"));
  CHECK_FALSE(m.find("T2"));
}

TEST_CASE("system topics and TBW102 perms follow the config") {
  TopicConfigManager on(opts(""));
  auto tbw = on.find("TBW102");
  REQUIRE(tbw);
  CHECK(tbw->perm == 7);
  CHECK(tbw->writeQueueNums == 8);
  CHECK(on.find("SCHEDULE_TOPIC_XXXX")->readQueueNums == 18);
  CHECK(on.find("broker-a")->writeQueueNums == 1);
  CHECK(on.find("DefaultCluster")->perm == 7);
  CHECK(on.find("DefaultCluster_REPLY_TOPIC"));
  CHECK(on.isSystemTopic("DefaultCluster"));
  CHECK(on.isSystemTopic("rmq_sys_whatever"));
  CHECK_FALSE(on.isSystemTopic("TopicTest"));
  TopicConfigManager off(opts("", false));
  CHECK_FALSE(off.find("TBW102"));
}

TEST_CASE("auto-create from TBW102 clamps queues and drops INHERIT") {
  TopicConfigManager m(opts(""));
  bool created = false;
  auto c = m.createTopicInSendMessageMethod("NewTopic", "TBW102", 4, 0, &created);
  REQUIRE(c);
  CHECK(created);
  CHECK(c->writeQueueNums == 4);
  CHECK(c->perm == 6);
  auto again = m.createTopicInSendMessageMethod("NewTopic", "TBW102", 4, 0, &created);
  CHECK_FALSE(created);
  CHECK(again->topicName == "NewTopic");
  CHECK(m.createTopicInSendMessageMethod("X", "TBW102", 100, 0)->writeQueueNums == 8);
  CHECK_FALSE(m.createTopicInSendMessageMethod("Y", "NoSuchDefault", 4, 0));
  TopicConfig plain;
  plain.topicName = "PlainTopic";
  m.updateTopicConfig(plain);
  CHECK_FALSE(m.createTopicInSendMessageMethod("Z", "PlainTopic", 4, 0));
  auto retry = m.createTopicInSendMessageBackMethod("%RETRY%g", 1, 6, 0, &created);
  CHECK(created);
  CHECK(retry.writeQueueNums == 1);
}

TEST_CASE("topic name rules") {
  CHECK(topics::isValidTopicName("%RETRY%cg-1|x_y"));
  CHECK_FALSE(topics::isValidTopicName("a b"));
  CHECK_FALSE(topics::isValidTopicName(""));
  CHECK_FALSE(topics::isValidTopicName(std::string(128, 'a')));
  CHECK(topics::isValidTopicName(std::string(127, 'a')));
  CHECK(perm::toString(7) == "RWX");
  CHECK(perm::toString(4) == "R--");
}

TEST_CASE("consumerOffset.json uses unquoted queue ids and reloads") {
  TempDir dir;
  {
    ConsumerOffsetManager m(dir.str());
    m.commitOffset("cg1", "TopicTest", 0, 250);
    m.commitOffset("cg1", "TopicTest", 1, 248);
    m.commitOffset("cg1", "%RETRY%cg1", 0, 0);
    REQUIRE(m.persist());
    CHECK(m.encode() == "{\"offsetTable\":{\"%RETRY%cg1@cg1\":{0:0},\"TopicTest@cg1\":{0:250,1:248}}}");
  }
  CHECK(readFile(dir.path / "consumerOffset.json") ==
        "{\n\t\"offsetTable\":{\n\t\t\"%RETRY%cg1@cg1\":{0:0},\n\t\t\"TopicTest@cg1\":{0:250,1:248}\n\t}\n}");
  ConsumerOffsetManager m(dir.str());
  REQUIRE(m.load());
  CHECK(m.queryOffset("cg1", "TopicTest", 1) == 248);
  CHECK(m.queryOffset("cg1", "TopicTest", 7) == -1);
  CHECK(m.queryOffset("nobody", "TopicTest", 0) == -1);
  CHECK(m.topicsOfGroup("cg1") == std::set<std::string>{"%RETRY%cg1", "TopicTest"});
  CHECK(m.groupsOfTopic("TopicTest") == std::set<std::string>{"cg1"});
  m.cloneOffset("cg1", "cg2", "TopicTest");
  CHECK(m.queryOffset("cg2", "TopicTest", 0) == 250);
  CHECK(m.queryOffset("cg2", "%RETRY%cg1", 0) == -1);
  m.removeGroup("cg1");
  CHECK(m.queryOffset("cg1", "TopicTest", 0) == -1);
  CHECK(m.queryOffset("cg2", "TopicTest", 0) == 250);
}

TEST_CASE("consumerOffset.json on a full disk: persist fails as a value, file and .bak stay whole") {
  TempDir dir;
  ConsumerOffsetManager m(dir.str());
  m.commitOffset("cg1", "TopicTest", 0, 250);
  REQUIRE(m.persist());
  m.commitOffset("cg1", "TopicTest", 0, 260);
  REQUIRE(m.persist());
  std::string main = readFile(dir.path / "consumerOffset.json"), bak = readFile(dir.path / "consumerOffset.json.bak");
  m.commitOffset("cg1", "TopicTest", 0, 300);
  rmq::setInjectedDiskFull(true);  // ENOSPC fault point: every small-file write fails
  auto r = m.persist();
  rmq::setInjectedDiskFull(false);
  REQUIRE_FALSE(r);
  CHECK(rmq::isNoSpace(r.error()));
  CHECK(readFile(dir.path / "consumerOffset.json") == main);
  CHECK(readFile(dir.path / "consumerOffset.json.bak") == bak);
  CHECK_FALSE(fs::exists(dir.path / "consumerOffset.json.tmp"));
  ConsumerOffsetManager again(dir.str());
  REQUIRE(again.load());
  CHECK(again.queryOffset("cg1", "TopicTest", 0) == 260);
  REQUIRE(m.persist());  // space is back: the next persist writes the newest offsets
  ConsumerOffsetManager latest(dir.str());
  REQUIRE(latest.load());
  CHECK(latest.queryOffset("cg1", "TopicTest", 0) == 300);
}

TEST_CASE("consumer offsets accept Java's and standard JSON forms") {
  ConsumerOffsetManager m("");
  REQUIRE(m.decodeAndReplace("{\"offsetTable\":{\"T@g\":{\"0\":5, 3 : 9}}}"));
  CHECK(m.queryOffset("g", "T", 0) == 5);
  CHECK(m.queryOffset("g", "T", 3) == 9);
  CHECK_FALSE(m.decodeAndReplace("{\"offsetTable\":{\"T@g\":{0:\"x\"}}}"));
  CHECK(m.queryOffset("g", "T", 0) == 5);  // a rejected document changes nothing
}

TEST_CASE("slave offset sync merges: the master's entries win key by key, local-only keys stay") {
  ConsumerOffsetManager m("");
  m.commitOffset("g", "T", 0, 3);
  m.commitOffset("g", "T", 1, 4);
  m.commitOffset("local", "T", 0, 7);  // committed on the slave only
  REQUIRE(m.decodeAndMerge("{\"offsetTable\":{\"T@g\":{0:10},\"U@g\":{2:5}}}"));
  CHECK(m.queryOffset("g", "T", 0) == 10);
  CHECK(m.queryOffset("g", "T", 1) == -1);  // Java's putAll replaces the whole topic@group entry
  CHECK(m.queryOffset("g", "U", 2) == 5);
  CHECK(m.queryOffset("local", "T", 0) == 7);
  CHECK_FALSE(m.decodeAndMerge("{\"offsetTable\":{\"T@g\":{0:\"x\"}}}"));
  CHECK(m.queryOffset("g", "T", 0) == 10);  // a rejected document changes nothing
}

TEST_CASE("subscriptionGroup.json round trip with every field") {
  TempDir dir;
  SubscriptionGroupConfig g;
  g.groupName = "cg1";
  g.consumeEnable = false;
  g.retryQueueNums = 2;
  g.retryMaxTimes = 5;
  g.brokerId = 1;
  g.whichBrokerWhenConsumeSlowly = 0;
  g.notifyConsumerIdsChangedEnable = false;
  CHECK(g.toJson() ==
        "{\"brokerId\":1,\"consumeBroadcastEnable\":true,\"consumeEnable\":false,\"consumeFromMinEnable\":true,"
        "\"groupName\":\"cg1\",\"notifyConsumerIdsChangedEnable\":false,\"retryMaxTimes\":5,"
        "\"retryQueueNums\":2,\"whichBrokerWhenConsumeSlowly\":0}");
  {
    SubscriptionGroupManager m(dir.str(), true);
    m.update(g);
  }
  SubscriptionGroupManager m(dir.str(), false);
  REQUIRE(m.load());
  REQUIRE(m.find("cg1"));
  CHECK(*m.find("cg1") == g);
  CHECK(m.find("TOOLS_CONSUMER"));
  CHECK_FALSE(m.findOrAutoCreate("unknown"));
  CHECK(m.findOrAutoCreate("CID_RMQ_SYS_X"));
  m.setAutoCreate(true);
  auto made = m.findOrAutoCreate("fresh");
  REQUIRE(made);
  CHECK(made->retryMaxTimes == 16);
  CHECK(m.remove("fresh"));
  CHECK_FALSE(m.find("fresh"));
  auto parsed = SubscriptionGroupConfig::fromJson("{\"groupName\":\"x\",\"retryMaxTimes\":3}");
  REQUIRE(parsed);
  CHECK(parsed->retryMaxTimes == 3);
  CHECK(parsed->retryQueueNums == 1);
  CHECK_FALSE(SubscriptionGroupConfig::fromJson("{\"retryMaxTimes\":3}"));
}
