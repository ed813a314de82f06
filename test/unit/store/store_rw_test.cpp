// Appends and every read path on a store with tiny files (file boundaries, blank markers).
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <thread>

#include "common/bytes.h"
#include "common/message_id.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;

TEST_CASE("append crosses files with blank markers; pulls return byte-exact records") {
  TempDir dir;
  MessageStore store(smallConfig(dir.path), testStoreHost());
  REQUIRE(store.open().ok());
  store.start();
  std::vector<AppendResult> results;
  std::vector<std::string> bodies;
  for (int i = 0; i < 600; ++i) {  // ~600 × 300 B = 180 KB: three 64 KiB files
    bodies.push_back(bodyOf(i, 100 + (i * 37) % 300));
    TestMessage t("TopicA", i % 3, bodies.back(), i % 2 ? "TagA" : "TagB", "k" + std::to_string(i));
    auto r = store.append(t.m);
    REQUIRE(r.ok());
    CHECK(r.queueOffset == i / 3);
    CHECK(r.msgId == createOffsetMsgId(testStoreHost(), r.physicalOffset));
    results.push_back(r);
  }
  CHECK(store.maxPhyOffset() > 2 * 64 * 1024);
  waitDispatched(store);
  // Blank marker at the end of the first file.
  auto firstOfFile2 = std::find_if(results.begin(), results.end(), [](auto& r) { return r.physicalOffset >= 65536; });
  REQUIRE(firstOfFile2 != results.end());
  CHECK(firstOfFile2->physicalOffset == 65536);
  auto lastOfFile1 = *(firstOfFile2 - 1);
  auto blank = store.readCommitLog(lastOfFile1.endOffset(), 8);
  REQUIRE(blank.bytes.size() == 8);
  CHECK(static_cast<int32_t>(loadBE32(blank.bytes.data() + 4)) == kBlankMagic);
  CHECK(static_cast<int64_t>(loadBE32(blank.bytes.data())) == 65536 - lastOfFile1.endOffset());

  for (int q = 0; q < 3; ++q) {
    CHECK(store.maxOffsetInQueue("TopicA", q) == 200);
    CHECK(store.minOffsetInQueue("TopicA", q) == 0);
    int64_t off = 0;
    int loops = 0;
    while (off < 200 && loops++ < 500) {
      auto g = store.getMessages("TopicA", q, off, 32, 1 << 30, nullptr);
      REQUIRE((g.status == GetStatus::FOUND));
      REQUIRE(g.owner);
      for (size_t k = 0; k < g.records.size(); ++k) {
        int i = static_cast<int>(g.queueOffsets[k]) * 3 + q;
        auto m = decodeMessage(g.records[k]);
        REQUIRE(m.ok());
        CHECK(m->body == bodies[i]);
        CHECK(m->queueOffset == g.queueOffsets[k]);
        CHECK(m->commitLogOffset == results[i].physicalOffset);
        CHECK(m->storeHost == testStoreHost());
        CHECK(m->keys() == "k" + std::to_string(i));
        CHECK(m->bodyCRC == crc32Masked(bodies[i]));
      }
      off = g.nextBeginOffset;
    }
    CHECK(off == 200);
  }
  // Statuses of §8.3.
  CHECK((store.getMessages("TopicA", 0, 200, 32, 1 << 30, nullptr).status == GetStatus::OFFSET_OVERFLOW_ONE));
  auto badly = store.getMessages("TopicA", 0, 500, 32, 1 << 30, nullptr);
  CHECK((badly.status == GetStatus::OFFSET_OVERFLOW_BADLY));
  CHECK(badly.nextBeginOffset == 0);  // minOffset 0 → back to 0 like Java
  CHECK((store.getMessages("Nope", 0, 0, 32, 1 << 30, nullptr).status == GetStatus::NO_MATCHED_LOGIC_QUEUE));
  // Tag filter: only TagA (odd i).
  int32_t tagA = javaStringHash("TagA");
  MessageFilter onlyA = [&](int64_t code, const std::string_view*) { return code == tagA; };
  auto fa = store.getMessages("TopicA", 1, 0, 32, 1 << 30, &onlyA);
  REQUIRE((fa.status == GetStatus::FOUND));
  for (auto& rec : fa.records) CHECK(decodeMessage(rec)->tags() == "TagA");
  MessageFilter none = [](int64_t, const std::string_view*) { return false; };
  auto nm = store.getMessages("TopicA", 1, 0, 32, 1 << 30, &none);
  CHECK((nm.status == GetStatus::NO_MATCHED_MESSAGE));
  CHECK(nm.nextBeginOffset == 10);  // one CQ file of 10 units scanned
  // Property-stage filter sees the record's properties.
  MessageFilter propStage = [](int64_t, const std::string_view* p) {
    return !p || findEncodedProperty(*p, "KEYS") == "k4";
  };
  auto ps = store.getMessages("TopicA", 1, 0, 32, 1 << 30, &propStage);
  REQUIRE(ps.records.size() == 1);
  CHECK(ps.queueOffsets[0] == 1);
  // Count cap and byte cap.
  CHECK(store.getMessages("TopicA", 0, 0, 3, 1 << 30, nullptr).records.size() == 3);
  CHECK(store.getMessages("TopicA", 0, 0, 32, 1, nullptr).records.size() == 1);

  // Lookups.
  for (int i : {0, 1, 299, 599}) {
    auto v = store.lookMessageByOffset(results[i].physicalOffset);
    REQUIRE(v);
    CHECK(decodeMessage(v.bytes)->body == bodies[i]);
    auto byId = store.lookMessageByMsgId(results[i].msgId);
    CHECK(byId.bytes == v.bytes);
    auto q = store.queryMessage("TopicA", "k" + std::to_string(i), 32, 0, INT64_MAX);
    REQUIRE(q.records.size() >= 1);
    bool found = false;
    for (auto& r : q.records) found |= decodeMessage(r)->keys() == "k" + std::to_string(i);
    CHECK(found);
  }
  CHECK_FALSE(store.lookMessageByOffset(results[5].physicalOffset + 1));
  CHECK_FALSE(store.lookMessageByMsgId("nonsense"));
  CHECK(store.queryMessage("TopicA", "absent-key", 32, 0, INT64_MAX).records.empty());
  CHECK(store.queryMessage("OtherTopic", "k1", 32, 0, INT64_MAX).records.empty());
  // Times.
  CHECK(store.messageStoreTime("TopicA", 0, 0) == results[0].storeTimestamp);
  CHECK(store.earliestMessageTime() == results[0].storeTimestamp);
  CHECK(store.earliestMessageTime("TopicA", 2) == results[2].storeTimestamp);
  CHECK(store.offsetInQueueByTime("TopicA", 0, 0) == 0);
  CHECK(store.offsetInQueueByTime("TopicA", 0, INT64_MAX) == 200);
  CHECK(store.offsetInQueueByTime("TopicA", 0, results[297].storeTimestamp) <= 99);
  CHECK(store.commitLogOffsetInQueue("TopicA", 1, 5) == results[16].physicalOffset);
  CHECK(store.queues().at("TopicA") == std::set<int>{0, 1, 2});
  store.shutdown();
}

TEST_CASE("invalid messages are rejected with a clear status and nothing is written") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.maxMessageSize = 1000;
  MessageStore store(cfg, testStoreHost());
  REQUIRE(store.open().ok());
  store.start();
  TestMessage big("T", 0, std::string(1001, 'x'));
  auto r = store.append(big.m);
  CHECK((r.status == PutStatus::MESSAGE_ILLEGAL));
  CHECK_FALSE(r.error.empty());
  TestMessage longTopic(std::string(128, 't'), 0, "x");
  CHECK((store.append(longTopic.m).status == PutStatus::MESSAGE_ILLEGAL));
  TestMessage hugeProps("T", 0, "x", "", "", {{"p", std::string(33000, 'v')}});
  CHECK((store.append(hugeProps.m).status == PutStatus::PROPERTIES_SIZE_EXCEEDED));
  CHECK(store.maxPhyOffset() == 0);
  store.shutdown();
  TestMessage ok("T", 0, "x");
  CHECK((store.append(ok.m).status == PutStatus::SERVICE_NOT_AVAILABLE));
}

TEST_CASE("maxMessageSize bounds a whole batch as sent, as Java's checkMessages, not only each body") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.maxMessageSize = 2000;
  MessageStore store(cfg, testStoreHost());
  REQUIRE(store.open().ok());
  store.start();
  std::vector<Message> items(3);
  for (auto& m : items) m.body = std::string(900, 'b');  // each body fits, the three do not
  std::string body = encodeBatch(items);
  BatchToStore b;
  b.topic = "BatchMax";
  b.batchBody = body;
  auto refused = store.appendBatch(b);
  CHECK((refused.status == PutStatus::MESSAGE_ILLEGAL));
  CHECK(refused.error.find("larger than maxMessageSize 2000") != std::string::npos);
  CHECK(store.maxPhyOffset() == 0);
  CHECK(store.remarkFor(refused.status, refused.error) ==
        "the message is illegal, maybe msg body or properties length not matched. msg body length limit 2000B, "
        "msg properties length limit 32KB.");
  items.pop_back();
  std::string two = encodeBatch(items);  // 2 x (900 + item header) <= 2000
  REQUIRE(two.size() <= 2000);
  b.batchBody = two;
  CHECK(store.appendBatch(b).ok());
  store.shutdown();
}

TEST_CASE("batch append is atomic: one file, consecutive queue offsets, merged properties") {
  TempDir dir;
  MessageStore store(smallConfig(dir.path), testStoreHost());
  REQUIRE(store.open().ok());
  store.start();
  // Fill the first file to near its end so the batch cannot fit.
  int64_t end = 0;
  int i = 0;
  while (end < 65536 - 2000) {
    TestMessage t("Filler", 0, bodyOf(i++, 500));
    end = store.append(t.m).endOffset();
  }
  std::vector<Message> items(3);
  for (int k = 0; k < 3; ++k) {
    items[k].body = bodyOf(k, 900);
    items[k].putProperty(prop::KEYS, "OrderID00" + std::to_string(k + 1));
  }
  std::string body = encodeBatch(items);
  std::string batchProps = encodeProperties({{"CLUSTER", "DefaultCluster"}});
  BatchToStore b;
  b.topic = "BatchTest";
  b.queueId = 1;
  b.batchBody = body;
  b.batchProperties = batchProps;
  HostAddress::parse("10.0.0.9:4242", b.bornHost);
  auto r = store.appendBatch(b);
  REQUIRE(r.ok());
  CHECK(r.physicalOffset == 65536);  // moved whole to the next file
  CHECK(r.msgNum == 3);
  CHECK(r.queueOffset == 0);
  CHECK(std::count(r.msgId.begin(), r.msgId.end(), ',') == 2);
  auto again = store.appendBatch(b);
  CHECK(again.queueOffset == 3);
  for (int k = 0; k < 2500 && store.dispatchedPhyOffset() < store.maxPhyOffset(); ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto g = store.getMessages("BatchTest", 1, 0, 32, 1 << 30, nullptr);
  REQUIRE(g.records.size() == 6);
  for (int k = 0; k < 6; ++k) {
    auto m = decodeMessage(g.records[k]);
    CHECK(m->queueOffset == k);
    CHECK(m->body == items[k % 3].body);
    CHECK(*m->property("CLUSTER") == "DefaultCluster");
    CHECK(m->keys() == "OrderID00" + std::to_string(k % 3 + 1));
  }
  CHECK(store.queryMessage("BatchTest", "OrderID002", 32, 0, INT64_MAX).records.size() == 2);
  // Malformed and oversized batches leave no trace.
  int64_t before = store.maxPhyOffset();
  b.batchBody = std::string_view(body).substr(0, body.size() - 5);
  CHECK((store.appendBatch(b).status == PutStatus::MESSAGE_ILLEGAL));
  std::vector<Message> huge(80);
  for (auto& h : huge) h.body = std::string(1000, 'h');
  std::string hugeBody = encodeBatch(huge);
  b.batchBody = hugeBody;
  CHECK((store.appendBatch(b).status == PutStatus::MESSAGE_ILLEGAL));
  CHECK(store.maxPhyOffset() == before);
  store.shutdown();
}

TEST_CASE("delay messages park in SCHEDULE_TOPIC_XXXX with the delivery time as tags code") {
  TempDir dir;
  MessageStore store(smallConfig(dir.path), testStoreHost());
  REQUIRE(store.open().ok());
  store.start();
  TestMessage t("TestTopic", 3, "later", "TagD", "dk", {{"DELAY", "3"}});
  auto r = store.append(t.m);
  REQUIRE(r.ok());
  CHECK(r.topic == "SCHEDULE_TOPIC_XXXX");
  CHECK(r.queueId == 2);
  TestMessage capped("TestTopic", 0, "capped", "", "", {{"DELAY", "9"}});
  CHECK(store.append(capped.m).queueId == 2);  // level capped at 3
  for (int k = 0; k < 2500 && store.dispatchedPhyOffset() < store.maxPhyOffset(); ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto g = store.getMessages("SCHEDULE_TOPIC_XXXX", 2, 0, 32, 1 << 30, nullptr);
  REQUIRE(g.records.size() == 2);
  CHECK(g.tagsCodes[0] == r.storeTimestamp + 3000);
  auto m = decodeMessage(g.records[0]);
  CHECK(*m->property("REAL_TOPIC") == "TestTopic");
  CHECK(*m->property("REAL_QID") == "3");
  CHECK(*m->property("DELAY") == "3");
  CHECK(store.maxOffsetInQueue("TestTopic", 3) == 0);
  store.shutdown();
}

TEST_CASE("arrival listener fires promptly after each append") {
  TempDir dir;
  MessageStore store(smallConfig(dir.path), testStoreHost());
  REQUIRE(store.open().ok());
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<std::string, int64_t>> seen;
  store.setArrivalListener([&](const std::string& topic, int qid, int64_t qoff, int64_t tags, int64_t ts,
                               std::string_view props) {
    std::lock_guard lock(mu);
    seen.emplace_back(topic + "/" + std::to_string(qid), qoff);
    CHECK(tags == javaStringHash("TagL"));
    CHECK(findEncodedProperty(props, "TAGS") == "TagL");
    cv.notify_all();
  });
  store.start();
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let the dispatcher fall asleep
    TestMessage t("Live", 1, "b", "TagL");
    auto start = std::chrono::steady_clock::now();
    REQUIRE(store.append(t.m).ok());
    std::unique_lock lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(2), [&] { return seen.size() == size_t(i + 1); }));
    CHECK(seen.back() == std::make_pair(std::string("Live/1"), int64_t(i)));
    // Not a timing assertion: the 500 ms safety wake-up must not be what delivered it.
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(400));
  }
  store.shutdown();
}
