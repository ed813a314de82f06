// The transaction records (transaction/transactional_message.h) against the half messages the Java
// 4.9.8 broker stored in the fixture (../shared/fixtures): half layout, commit, op, renewed copy,
// check body.
#include <doctest/doctest.h>

#include "common/message_codec.h"
#include "java_fixture.h"
#include "roles/broker/metadata/topic_config.h"
#include "roles/broker/transaction/transactional_message.h"
#include "store/message_store.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::broker;

TEST_CASE("transaction records: a send becomes a half message as Java stores it") {
  std::string props = encodeProperties({{"TAGS", "TagA"}, {"TRAN_MSG", "true"}, {"PGROUP", "pg"}});
  store::MessageToStore m;
  m.topic = "RealTopic";
  m.queueId = 3;
  m.properties = props;
  m.sysFlag = sysflag::TRANSACTION_PREPARED_TYPE | sysflag::MULTI_TAGS;
  std::string buf;
  CHECK(tx::isHalfMessage(m.properties));
  tx::toHalfMessage(m, buf);
  CHECK(m.topic == topics::TRANS_HALF_TOPIC);
  CHECK(m.queueId == 0);
  CHECK(m.sysFlag == sysflag::MULTI_TAGS);  // transaction bits cleared (the fixture's halves have 0)
  CHECK(findEncodedProperty(m.properties, prop::REAL_TOPIC) == std::optional<std::string_view>("RealTopic"));
  CHECK(findEncodedProperty(m.properties, prop::REAL_QID) == std::optional<std::string_view>("3"));
  CHECK_FALSE(tx::isHalfMessage(encodeProperties({{"TRAN_MSG", "false"}})));
}

TEST_CASE("transaction records: op record properties and body as RocketMQ 4.9 writes them") {
  std::string body;
  auto op = tx::opMessage(42, rmq::test::javaFixtureHost(), 1234, body);
  CHECK(op.topic == topics::TRANS_OP_HALF_TOPIC);
  CHECK(op.queueId == 0);
  CHECK(op.body == "42");
  CHECK(op.properties == std::string_view("WAIT\x01true\x02TAGS\x01" "d"));
  CHECK(op.bornTimestamp == 1234);
  CHECK(op.sysFlag == 0);
}

TEST_CASE("transaction records: commit, renewed copy and check body from the Java fixture's half messages") {
  store::test::TempDir dir;
  std::string root = rmq::test::unpackJavaFixture(dir.path);
  if (root.empty()) {
    MESSAGE("fixtures not found under " << rmq::test::javaFixtureDir() << ": skipped");
    return;
  }
  store::MessageStore st(rmq::test::javaFixtureConfig(root), rmq::test::javaFixtureHost());
  REQUIRE(st.open());
  const std::string half(topics::TRANS_HALF_TOPIC);
  REQUIRE(st.maxOffsetInQueue(half, 0) == 10);
  auto g = st.getMessages(half, 0, 0, 10, 1 << 20, nullptr);
  REQUIRE(g.records.size() == 10);
  for (auto bytes : g.records) {
    RecordView h;
    REQUIRE(parseRecord(bytes.data(), bytes.size(), h, true) == RecordParse::Ok);
    CHECK(tx::isHalfMessage(h.properties));
    CHECK(h.sysFlag == 0);  // what our toHalfMessage stores too

    auto commit = tx::commitMessage(h);
    REQUIRE(commit);
    CHECK(commit->topic == "TopicTest1234");
    CHECK(std::to_string(commit->queueId) == *findEncodedProperty(h.properties, prop::REAL_QID));
    CHECK(commit->sysFlag == sysflag::TRANSACTION_COMMIT_TYPE);
    CHECK(commit->preparedTransactionOffset == h.physicalOffset);
    CHECK(commit->properties == h.properties);  // REAL_*, TRAN_MSG, PGROUP kept, as Java
    CHECK(commit->body == h.body);
    CHECK(commit->bornTimestamp == h.bornTimestamp);

    CHECK(tx::checkTimesOf(h) == 0);
    std::string buf;
    auto renewed = tx::renewHalfMessage(h, 1, buf);
    CHECK(renewed.topic == half);
    CHECK(renewed.queueId == 0);
    CHECK(findEncodedProperty(renewed.properties, prop::TRANSACTION_CHECK_TIMES) ==
          std::optional<std::string_view>("1"));
    CHECK_FALSE(tx::checkImmunityMs(h, 6000).has_value());  // no property: transactionTimeOut applies

    auto body = tx::checkStateBody(h);
    auto decoded = decodeMessage(body);
    REQUIRE(decoded);
    CHECK(decoded->topic == "TopicTest1234");
    CHECK(std::to_string(decoded->queueId) == *findEncodedProperty(h.properties, prop::REAL_QID));
    CHECK(decoded->commitLogOffset == h.physicalOffset);
    CHECK(decoded->queueOffset == h.queueOffset);
    CHECK(decoded->body == h.body);
    CHECK(decoded->bodyCRC == h.bodyCRC);
  }
  st.shutdown();
}

TEST_CASE("transaction records: CHECK_IMMUNITY_TIME_IN_SECONDS replaces transactionTimeOut") {
  std::string props = encodeProperties({{"CHECK_IMMUNITY_TIME_IN_SECONDS", "30"}, {"TRANSACTION_CHECK_TIMES", "4"}});
  RecordView h;
  h.properties = props;
  CHECK(tx::checkImmunityMs(h, 6000) == 30000);
  CHECK(tx::checkTimesOf(h) == 4);
  std::string bad = encodeProperties({{"CHECK_IMMUNITY_TIME_IN_SECONDS", "soon"}});
  h.properties = bad;
  CHECK(tx::checkImmunityMs(h, 6000) == 6000);
  std::string minusOne = encodeProperties({{"CHECK_IMMUNITY_TIME_IN_SECONDS", "-1"}});
  h.properties = minusOne;
  CHECK(tx::checkImmunityMs(h, 6000) == 6000);  // Java: -1 means transactionTimeOut
  std::string none = encodeProperties({{"KEYS", "k"}});
  h.properties = none;
  CHECK_FALSE(tx::checkImmunityMs(h, 6000).has_value());
  CHECK_FALSE(tx::preparedQueueOffsetOf(h).has_value());
}

TEST_CASE("transaction records: an immunity copy carries TRAN_PREPARED_QUEUE_OFFSET of the original") {
  std::string props = encodeProperties({{"KEYS", "k"}, {"CHECK_IMMUNITY_TIME_IN_SECONDS", "30"}});
  RecordView h;
  h.topic = "RMQ_SYS_TRANS_HALF_TOPIC";
  h.queueOffset = 7;
  h.properties = props;
  std::string buf;
  auto first = tx::renewImmunityHalfMessage(h, 1, h.queueOffset, buf);
  CHECK(first.topic == "RMQ_SYS_TRANS_HALF_TOPIC");
  CHECK(first.queueId == 0);
  CHECK(findEncodedProperty(first.properties, prop::TRAN_PREPARED_QUEUE_OFFSET) == std::optional<std::string_view>("7"));
  CHECK(findEncodedProperty(first.properties, prop::TRANSACTION_CHECK_TIMES) == std::optional<std::string_view>("1"));
  CHECK(findEncodedProperty(first.properties, prop::KEYS) == std::optional<std::string_view>("k"));
  // A copy of a copy keeps the original's offset (Java keeps queueOffsetFromPrepare).
  std::string copyProps(first.properties);
  RecordView copy = h;
  copy.queueOffset = 12;
  copy.properties = copyProps;
  CHECK(tx::preparedQueueOffsetOf(copy) == 7);
  std::string buf2;
  auto second = tx::renewImmunityHalfMessage(copy, 2, copy.queueOffset, buf2);
  CHECK(findEncodedProperty(second.properties, prop::TRAN_PREPARED_QUEUE_OFFSET) == std::optional<std::string_view>("7"));
  CHECK(findEncodedProperty(second.properties, prop::TRANSACTION_CHECK_TIMES) == std::optional<std::string_view>("2"));
  std::string bad = encodeProperties({{"TRAN_PREPARED_QUEUE_OFFSET", "x"}});
  copy.properties = bad;
  CHECK(tx::preparedQueueOffsetOf(copy) == -1);
}
