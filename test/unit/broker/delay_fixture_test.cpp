// Delay delivery against the store Apache RocketMQ 4.9.8 wrote (../shared/fixtures): our
// ScheduleMessageService delivers the 100 parked SCHEDULE_TOPIC_XXXX records again and every
// record it writes equals, field by field, the one the Java broker delivered (DELAY kept).
#include <doctest/doctest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "common/message_codec.h"
#include "java_fixture.h"
#include "roles/broker/delivery/schedule_message_service.h"
#include "roles/broker/delivery/stored_message.h"
#include "roles/broker/metadata/topic_config.h"
#include "store/message_store.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::broker;

namespace {

constexpr int kScheduleQueue = 2;  // the fixture's messages use delay level 3
constexpr int kDelayed = 100;

RecordView parsed(std::string_view bytes) {
  RecordView v;
  REQUIRE(parseRecord(bytes.data(), bytes.size(), v, true) == RecordParse::Ok);
  return v;
}

// Java's delivered records of `topic`, by UNIQ_KEY (bytes owned by the map).
std::map<std::string, std::string> recordsByUniqKey(store::MessageStore& st, const std::string& topic,
                                                    int64_t endOffsetPerQueue) {
  std::map<std::string, std::string> out;
  for (int q = 0; q < 4; ++q) {
    auto g = st.getMessages(topic, q, 0, static_cast<int32_t>(endOffsetPerQueue), 1 << 30, nullptr);
    for (auto rec : g.records) {
      auto uniq = findEncodedProperty(parsed(rec).properties, prop::UNIQ_KEY);
      REQUIRE(uniq);
      out.emplace(std::string(*uniq), std::string(rec));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("delay delivery writes the record Java 4.9.8 writes (fixture store, DELAY kept)") {
  store::test::TempDir dir;
  std::string root = rmq::test::unpackJavaFixture(dir.path);
  if (root.empty()) {
    MESSAGE("fixtures not found under " << rmq::test::javaFixtureDir() << ": skipped");
    return;
  }
  store::MessageStore st(rmq::test::javaFixtureConfig(root), rmq::test::javaFixtureHost());
  REQUIRE(st.open());
  st.start();
  REQUIRE(st.maxOffsetInQueue(std::string(topics::SCHEDULE_TOPIC), kScheduleQueue) == kDelayed);

  // What the Java broker delivered: TestTopic queues 0-3, offsets 0-24.
  auto java = recordsByUniqKey(st, "TestTopic", 25);
  REQUIRE(java.size() == kDelayed);

  // The pure step first: one parked record in, the Java destination and properties out.
  auto parkedGet = st.getMessages(std::string(topics::SCHEDULE_TOPIC), kScheduleQueue, 0, 1, 1 << 20, nullptr);
  REQUIRE(parkedGet.records.size() == 1);
  RecordView parked = parsed(parkedGet.records[0]);
  auto timeup = delayTimeup(parked);
  REQUIRE(timeup);
  CHECK(timeup->topic == "TestTopic");
  CHECK(timeup->delayDelivered);
  CHECK(timeup->properties == parked.properties);
  CHECK(findEncodedProperty(timeup->properties, prop::DELAY) == std::optional<std::string_view>("3"));

  // Deliver all 100 again (a fresh delayOffset.json starts every level at 0; all are long due).
  auto levels = DelayLevels::parse(st.config().messageDelayLevel);
  REQUIRE(levels);
  ScheduleMessageService svc(st, *levels, dir.path + "/sched-config", 1000);
  REQUIRE(svc.load());
  svc.start();
  auto total = [&] {
    int64_t n = 0;
    for (int q = 0; q < 4; ++q) n += st.maxOffsetInQueue("TestTopic", q);
    return n;
  };
  for (int i = 0; i < 1000 && total() < 2 * kDelayed; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  svc.shutdown();
  REQUIRE(total() == 2 * kDelayed);
  CHECK(svc.deliveredCount() == kDelayed);
  CHECK(svc.offsets().at(3) == kDelayed);
  // Not parked again although DELAY=3 is in the delivered properties.
  CHECK(st.maxOffsetInQueue(std::string(topics::SCHEDULE_TOPIC), kScheduleQueue) == kDelayed);

  int compared = 0;
  for (int q = 0; q < 4; ++q) {
    auto g = st.getMessages("TestTopic", q, 25, 32, 1 << 30, nullptr);
    for (size_t i = 0; i < g.records.size(); ++i) {
      RecordView ours = parsed(g.records[i]);
      auto uniq = findEncodedProperty(ours.properties, prop::UNIQ_KEY);
      REQUIRE(uniq);
      CAPTURE(*uniq);
      auto it = java.find(std::string(*uniq));
      REQUIRE(it != java.end());
      RecordView theirs = parsed(it->second);
      CHECK(ours.totalSize == theirs.totalSize);
      CHECK(ours.magic == theirs.magic);
      CHECK(ours.bodyCRC == theirs.bodyCRC);
      CHECK(ours.queueId == theirs.queueId);
      CHECK(ours.flag == theirs.flag);
      CHECK(ours.queueOffset == theirs.queueOffset + 25);
      CHECK(ours.sysFlag == theirs.sysFlag);
      CHECK(ours.bornTimestamp == theirs.bornTimestamp);
      CHECK(ours.bornHost.toString() == theirs.bornHost.toString());
      CHECK(ours.storeHost.toString() == theirs.storeHost.toString());
      CHECK(ours.reconsumeTimes == theirs.reconsumeTimes);
      CHECK(ours.preparedTransactionOffset == theirs.preparedTransactionOffset);
      CHECK(ours.body == theirs.body);
      CHECK(ours.topic == theirs.topic);
      CHECK(ours.properties == theirs.properties);  // byte for byte, DELAY=3 included
      // Only the position and the store time differ from the Java record's bytes.
      CHECK(ours.raw.substr(64) == theirs.raw.substr(64));
      ++compared;
    }
  }
  CHECK(compared == kDelayed);
  st.shutdown();
}
