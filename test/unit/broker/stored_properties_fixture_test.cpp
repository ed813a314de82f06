// The properties strings Java 4.9.8 stored in the fixture store (../shared/fixtures), rebuilt from
// what a producer could have sent: the send path (buildStoredProperties), batches
// (buildBatchProperties), half messages (toHalfMessage) and DELAY parking in the store must give the
// very bytes Java wrote: WAIT dropped or kept as Java does, CLUSTER added, HashMap order, no
// trailing separator.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/message_codec.h"
#include "java_fixture.h"
#include "roles/broker/delivery/stored_message.h"
#include "roles/broker/metadata/topic_config.h"
#include "roles/broker/transaction/transactional_message.h"
#include "store/message_store.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::broker;

namespace {

constexpr std::string_view kCluster = "DefaultCluster";

// Every record of one queue of the fixture, as owned strings.
std::vector<std::string> queueRecords(store::MessageStore& st, const std::string& topic, int queueId) {
  std::vector<std::string> out;
  int64_t n = st.maxOffsetInQueue(topic, queueId);
  for (int64_t next = 0; next < n;) {  // a read returns at most 32 records
    auto g = st.getMessages(topic, queueId, next, static_cast<int32_t>(n - next), 1 << 30, nullptr);
    REQUIRE(!g.records.empty());
    for (auto rec : g.records) out.emplace_back(rec);
    next += static_cast<int64_t>(g.records.size());
  }
  REQUIRE(static_cast<int64_t>(out.size()) == n);
  return out;
}

RecordView parsed(const std::string& bytes) {
  RecordView v;
  REQUIRE(parseRecord(bytes.data(), bytes.size(), v, true) == RecordParse::Ok);
  return v;
}

// A producer's string that yields `stored`: the stored items without those the broker adds, in
// reverse order (Java's order must come from the broker, not from the producer), WAIT=true in the
// middle, a trailing separator (our C++ client writes one).
std::string producerString(std::string_view stored, std::initializer_list<std::string_view> brokerAdded) {
  Properties items = decodeProperties(stored);
  std::erase_if(items, [&](const auto& kv) {
    return kv.first == prop::WAIT ||
           std::find(brokerAdded.begin(), brokerAdded.end(), std::string_view(kv.first)) != brokerAdded.end();
  });
  std::reverse(items.begin(), items.end());
  items.insert(items.begin() + static_cast<std::ptrdiff_t>(items.size() / 2), {std::string(prop::WAIT), "true"});
  return encodeProperties(items) + prop::PROPERTY_SEPARATOR;
}

}  // namespace

TEST_CASE("stored properties: plain, half, delayed and batch sends give the bytes Java 4.9.8 stored (fixture)") {
  store::test::TempDir dir;
  std::string root = rmq::test::unpackJavaFixture(dir.path);
  if (root.empty()) {
    MESSAGE("fixtures not found under " << rmq::test::javaFixtureDir() << ": skipped");
    return;
  }
  store::MessageStore st(rmq::test::javaFixtureConfig(root), rmq::test::javaFixtureHost());
  REQUIRE(st.open());

  SUBCASE("plain sends: WAIT dropped, CLUSTER added, HashMap order") {
    int checked = 0;
    for (auto [topic, queues] : std::initializer_list<std::pair<std::string, int>>{
             {"FixtureA", 4}, {"TopicTest", 4}, {"TopicTestjjj", 4}}) {
      for (int q = 0; q < queues; ++q) {
        for (const auto& bytes : queueRecords(st, topic, q)) {
          RecordView rec = parsed(bytes);
          std::string sent = producerString(rec.properties, {prop::CLUSTER});
          std::string out;
          std::optional<std::string_view> wait;
          CHECK(buildStoredProperties(sent, kCluster, out, wait));
          CHECK(wait == std::optional<std::string_view>("true"));
          CHECK(out == rec.properties);
          ++checked;
        }
      }
    }
    CHECK(checked == 1700);
  }

  SUBCASE("half messages: WAIT back in, REAL_TOPIC / REAL_QID added, HashMap order") {
    for (const auto& bytes : queueRecords(st, std::string(topics::TRANS_HALF_TOPIC), 0)) {
      RecordView rec = parsed(bytes);
      std::string sent = producerString(rec.properties, {prop::CLUSTER, prop::REAL_TOPIC, prop::REAL_QID});
      std::string props, half;
      std::optional<std::string_view> wait;
      buildStoredProperties(sent, kCluster, props, wait);
      CHECK(findEncodedProperty(props, prop::WAIT) == std::nullopt);
      store::MessageToStore m;
      m.topic = *findEncodedProperty(rec.properties, prop::REAL_TOPIC);
      std::string qid(*findEncodedProperty(rec.properties, prop::REAL_QID));
      m.queueId = std::stoi(qid);
      m.properties = props;
      m.waitProperty = wait;
      tx::toHalfMessage(m, half);
      CHECK(m.properties == rec.properties);
    }
  }

  SUBCASE("delayed sends: parked in SCHEDULE_TOPIC_XXXX with WAIT back in, as Java wrote them") {
    store::test::TempDir ours;
    auto cfg = store::test::smallConfig(ours.path);
    cfg.messageDelayLevel = "1s 2s 3s";
    store::MessageStore fresh(cfg, rmq::test::javaFixtureHost());
    REQUIRE(fresh.open());
    fresh.start();
    auto javaParked = queueRecords(st, std::string(topics::SCHEDULE_TOPIC), 2);
    REQUIRE(javaParked.size() == 100);
    for (const auto& bytes : javaParked) {
      RecordView rec = parsed(bytes);
      std::string sent = producerString(rec.properties, {prop::CLUSTER, prop::REAL_TOPIC, prop::REAL_QID});
      std::string props;
      std::optional<std::string_view> wait;
      buildStoredProperties(sent, kCluster, props, wait);
      store::MessageToStore m;
      m.topic = *findEncodedProperty(rec.properties, prop::REAL_TOPIC);
      m.queueId = std::stoi(std::string(*findEncodedProperty(rec.properties, prop::REAL_QID)));
      m.body = rec.body;
      m.properties = props;
      m.waitProperty = wait;
      auto res = fresh.append(m);
      REQUIRE(res.ok());
      CHECK(res.topic == topics::SCHEDULE_TOPIC);
      CHECK(res.queueId == 2);
      auto ours = fresh.lookMessageByOffset(res.physicalOffset);
      REQUIRE(!ours.bytes.empty());
      CHECK(parsed(std::string(ours.bytes)).properties == rec.properties);
    }
  }

  SUBCASE("batch: the header's WAIT kept after CLUSTER, appended to each item's string") {
    std::string batchProps;
    CHECK(buildBatchProperties(std::string("WAIT\x01true"), kCluster, batchProps));
    CHECK(batchProps == std::string("CLUSTER\x01" "DefaultCluster\x02WAIT\x01true"));
    auto items = queueRecords(st, "BatchTest", 3);
    REQUIRE(items.size() == 3);
    for (const auto& bytes : items) {
      std::string_view stored = parsed(bytes).properties;
      CHECK(stored.substr(stored.size() - batchProps.size() - 1) == prop::PROPERTY_SEPARATOR + batchProps);
    }
  }
}

TEST_CASE("stored properties: WAIT values, CLUSTER replaced, malformed items dropped, DELAY kept on a DLQ send") {
  auto props = [](std::initializer_list<std::pair<std::string, std::string>> kv) {
    std::string s;
    for (auto& [k, v] : kv) s += k + '\x01' + v + '\x02';
    return s;
  };
  std::string out;
  std::optional<std::string_view> wait;
  std::string sent = props({{"WAIT", "false"}, {"TAGS", "A"}});  // `wait` views it
  CHECK_FALSE(buildStoredProperties(sent, "C1", out, wait));
  CHECK(wait == std::optional<std::string_view>("false"));
  CHECK(out == std::string("CLUSTER\x01" "C1\x02TAGS\x01" "A"));  // HashMap order
  CHECK(buildStoredProperties(props({{"WAIT", "TRUE"}}), "C", out, wait));  // Boolean.parseBoolean
  CHECK(buildStoredProperties(props({{"KEYS", "k"}, {"CLUSTER", "old"}}), "C2", out, wait));
  CHECK_FALSE(wait);
  CHECK(out == std::string("KEYS\x01k\x02" "CLUSTER\x01" "C2"));
  CHECK(buildStoredProperties("", "C", out, wait));  // no WAIT = wait
  CHECK(out == std::string("CLUSTER\x01" "C"));
  buildStoredProperties(std::string("junk\x02") + props({{"TAGS", "A"}}), "C", out, wait);
  CHECK(out == std::string("CLUSTER\x01" "C\x02TAGS\x01" "A"));
  buildStoredProperties(props({{"DELAY", "3"}, {"TAGS", "A"}}), "C", out, wait);
  CHECK(findEncodedProperty(out, prop::DELAY) == std::optional<std::string_view>("3"));
  CHECK_FALSE(waitStoreMsgOk(std::string_view("yes")));
  CHECK(waitStoreMsgOk(std::nullopt));
}
