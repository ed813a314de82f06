// ScheduleMessageService against a real store in a temp dir: a DELAY message parked in
// SCHEDULE_TOPIC_XXXX comes back on its real topic/queue (DELAY kept, as Java 4.9); delayOffset.json shape.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "common/message_codec.h"
#include "roles/broker/delivery/schedule_message_service.h"
#include "store/message_store.h"

using namespace rmq;
using namespace rmq::broker;
namespace fs = std::filesystem;

namespace {

struct TempStore {
  fs::path dir;
  std::unique_ptr<store::MessageStore> store;
  TempStore() {
    std::random_device rd;
    dir = fs::temp_directory_path() / ("rmq_sched_ut_" + std::to_string(rd()) + std::to_string(rd()));
    store::StoreConfig cfg;
    cfg.storePathRootDir = dir.string();
    cfg.mappedFileSizeCommitLog = 1 << 20;
    cfg.mappedFileSizeConsumeQueue = 20 * 1000;
    cfg.messageDelayLevel = "200ms 400ms";
    store = std::make_unique<store::MessageStore>(cfg, HostAddress::ipv4(0x7F000001, 10911));
    REQUIRE(store->open());
    store->start();
  }
  ~TempStore() {
    store->shutdown();
    store.reset();
    fs::remove_all(dir);
  }
};

bool waitFor(const std::function<bool()>& cond) {
  for (int i = 0; i < 200 && !cond(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return cond();
}

}  // namespace

TEST_CASE("schedule service delivers a due delay message to its real topic and records progress") {
  TempStore ts;
  auto& st = *ts.store;
  Properties props{{"TAGS", "TagA"}, {"DELAY", "2"}, {"KEYS", "k"}};
  std::string encoded = encodeProperties(props);
  store::MessageToStore m;
  m.topic = "RealTopic";
  m.queueId = 3;
  m.body = "delayed body";
  m.properties = encoded;
  m.bornTimestamp = 1;
  m.bornHost = HostAddress::ipv4(0x7F000001, 5000);
  auto put = st.append(m);
  REQUIRE(put.ok());
  CHECK(put.topic == "SCHEDULE_TOPIC_XXXX");
  REQUIRE(waitFor([&] { return st.maxOffsetInQueue("SCHEDULE_TOPIC_XXXX", 1) == 1; }));

  std::string configDir = (ts.dir / "config").string();
  auto levels = DelayLevels::parse(st.config().messageDelayLevel);
  REQUIRE(levels);
  ScheduleMessageService svc(st, *levels, configDir, 100);
  REQUIRE(svc.load());
  auto started = std::chrono::steady_clock::now();
  svc.start();
  REQUIRE(waitFor([&] { return st.maxOffsetInQueue("RealTopic", 3) == 1; }));
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds(300));  // not before due
  auto got = st.getMessages("RealTopic", 3, 0, 1, 1 << 20, nullptr);
  REQUIRE(got.records.size() == 1);
  auto msg = decodeMessage(got.records[0]);
  REQUIRE(msg);
  CHECK(msg->body == "delayed body");
  REQUIRE(msg->property("DELAY") != nullptr);
  CHECK(*msg->property("DELAY") == "2");  // kept, as Java 4.9 stores it
  CHECK(*msg->property("REAL_TOPIC") == "RealTopic");
  CHECK(*msg->property("TAGS") == "TagA");
  CHECK(msg->bornHost.port == 5000);
  // The service counts the delivery, then records its offset, after the append returned (and
  // the dispatch above can be quicker): wait for the offset.
  REQUIRE(waitFor([&] { auto o = svc.offsets(); return o.count(2) == 1 && o.at(2) == 1; }));
  CHECK(svc.deliveredCount() == 1);
  svc.shutdown();

  std::ifstream in(configDir + "/delayOffset.json");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "{\n\t\"offsetTable\":{2:1}\n}");
  CHECK(svc.encode() == "{\"offsetTable\":{2:1}}");

  // A restart resumes from the file and does not deliver the message again.
  ScheduleMessageService again(st, *levels, configDir, 100);
  REQUIRE(again.load());
  CHECK(again.offsets().at(2) == 1);
  again.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  again.shutdown();
  CHECK(again.deliveredCount() == 0);
  CHECK(st.maxOffsetInQueue("RealTopic", 3) == 1);
}

TEST_CASE("delayOffset.json: bad documents are rejected, offsets clamp into the queue range") {
  TempStore ts;
  auto levels = DelayLevels::parse("1s");
  ScheduleMessageService svc(*ts.store, *levels, "", 100);
  CHECK_FALSE(svc.decodeAndReplace("{\"offsetTable\":{0:1}}"));
  CHECK_FALSE(svc.decodeAndReplace("{\"offsetTable\":{1:\"x\"}}"));
  REQUIRE(svc.decodeAndReplace("{\"offsetTable\":{1:99}}"));
  REQUIRE(svc.load());
  CHECK(svc.offsets().at(1) == 0);  // empty queue: clamped to max 0
}
