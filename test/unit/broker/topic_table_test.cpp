// topics.json at scale: the streaming reader agrees with the tolerant DOM decode, and change
// persistence is coalesced (a burst of creations = a bounded number of full-table writes).
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <random>
#include <vector>

#include "common/file_write.h"
#include "roles/broker/metadata/persist_soon.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "roles/broker/metadata/topic_table_reader.h"

using namespace rmq;
using namespace rmq::broker;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("rmq_topic_table_" + std::to_string(std::random_device{}()));
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

TopicConfigManagerOptions opts(const std::string& dir) {
  TopicConfigManagerOptions o;
  o.configDir = dir;
  return o;
}

}  // namespace

TEST_CASE("topic table: the streaming reader reads what the manager writes, as the DOM decode does") {
  TopicConfigManager m(opts(""));
  TopicConfig c;
  c.topicName = "Plain";
  m.updateTopicConfig(c);
  c.topicName = "Ordered";
  c.order = true;
  c.perm = perm::READ;
  c.readQueueNums = 3;
  c.writeQueueNums = 5;
  c.topicSysFlag = 2;
  c.topicFilterType = TopicFilterType::MultiTag;
  c.attributes = {{"message.type", "FIFO"}};  // 5.x: written only when set
  m.updateTopicConfig(c);
  std::string pretty = m.encode(true);
  CHECK(pretty.find("\"attributes\"") == pretty.rfind("\"attributes\""));  // one topic has them
  auto fast = readTopicTableFast(pretty);
  REQUIRE(fast);
  CHECK(fast->first == m.dataVersion());
  auto all = m.all();
  std::sort(fast->second.begin(), fast->second.end(), [](auto& a, auto& b) { return a.topicName < b.topicName; });
  CHECK(fast->second == all);
  auto viaManager = TopicConfigManager::decode(pretty);
  REQUIRE(viaManager.ok());
  CHECK(viaManager->second.size() == all.size());
}

TEST_CASE("topic table: unknown keys are skipped, attributes read, fastjson's unquoted keys take the tolerant path") {
  // A RocketMQ 5.x topics.json: attributes per topic, an extra root key, stateVersion.
  std::string five =
      "{\"dataVersion\":{\"counter\":3,\"stateVersion\":0,\"timestamp\":77},\"topicConfigTable\":{\"T\":{"
      "\"attributes\":{\"message.type\":\"NORMAL\"},\"order\":false,\"perm\":6,\"readQueueNums\":2,"
      "\"topicFilterType\":\"SINGLE_TAG\",\"topicName\":\"T\",\"topicSysFlag\":0,\"writeQueueNums\":2}},"
      "\"topicQueueMappingInfoMap\":{}}";
  auto fast = readTopicTableFast(five);
  REQUIRE(fast);
  CHECK(fast->first.counter == 3);
  CHECK(fast->first.timestamp == 77);
  REQUIRE(fast->second.size() == 1);
  CHECK(fast->second[0].topicName == "T");
  CHECK(fast->second[0].readQueueNums == 2);
  // 5.x's attributes are kept (message.type: the 5.x gRPC service's topic type), by both readers.
  CHECK(fast->second[0].attributes == std::map<std::string, std::string>{{"message.type", "NORMAL"}});
  auto dom = TopicConfigManager::decode("{topicConfigTable:{\"T\":{topicName:\"T\",perm:6,"
                                        "attributes:{\"message.type\":\"FIFO\"}}}}");
  REQUIRE(dom.ok());
  REQUIRE(dom->second.size() == 1);
  CHECK(dom->second[0].attributes.at("message.type") == "FIFO");

  std::string unquoted = "{dataVersion:{counter:1,timestamp:2},topicConfigTable:{\"U\":{topicName:\"U\",perm:4}}}";
  CHECK_FALSE(readTopicTableFast(unquoted));
  auto tolerant = TopicConfigManager::decode(unquoted);
  REQUIRE(tolerant.ok());
  REQUIRE(tolerant->second.size() == 1);
  CHECK(tolerant->second[0].perm == 4);
}

TEST_CASE("topic table: a burst of changes queues one write, the write carries all of them") {
  TempDir dir;
  TopicConfigManager m(opts(dir.path.string()));
  std::vector<std::function<void()>> queued;
  std::vector<std::chrono::milliseconds> delays;
  auto exec = [&](std::chrono::milliseconds delay, std::function<void()> job) {
    delays.push_back(delay);
    queued.push_back(std::move(job));
  };
  m.setPersistExecutor(exec, std::chrono::seconds(30));
  for (int i = 0; i < 1000; ++i) {
    TopicConfig c;
    c.topicName = "Burst" + std::to_string(i);
    m.updateTopicConfig(c);
  }
  REQUIRE(queued.size() == 1);
  CHECK(delays[0] == std::chrono::milliseconds(0));  // the first change after a quiet spell: at once
  queued[0]();
  TopicConfigManager reloaded(opts(dir.path.string()));
  REQUIRE(reloaded.load());
  CHECK(reloaded.contains("Burst0"));
  CHECK(reloaded.contains("Burst999"));
  // Once the job started, the next change queues the next write.
  TopicConfig late;
  late.topicName = "Late";
  m.updateTopicConfig(late);
  REQUIRE(queued.size() == 2);
  CHECK(delays[1] > std::chrono::seconds(29));  // right after a write: waits for the gap
  queued[1]();
  TopicConfigManager again(opts(dir.path.string()));
  REQUIRE(again.load());
  CHECK(again.contains("Late"));
  // The previous file is the backup (a hard link of it, no copy).
  CHECK(readWholeFile((dir.path / "topics.json.bak").string())->find("\"Late\"") == std::string::npos);
  CHECK(readWholeFile((dir.path / "topics.json.bak").string())->find("\"Burst999\"") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.path / "topics.json.bak.tmp"));
}
