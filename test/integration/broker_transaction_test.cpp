// Transactions on a real rmqnode (PROTOCOL.md §10.3): half messages invisible, END_TRANSACTION
// commit/rollback with RocketMQ's records (commit type, prepared offset, properties kept, op
// records), check-back to a live producer connection, discard after transactionCheckMax, and a
// half message whose broker is killed -9 before the decision resolved by check-back after restart.
#include <doctest/doctest.h>

#include "broker_transaction_helpers.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::test::tx;

TEST_CASE("broker transaction: half invisible, commit with RocketMQ's bits and op record, rollback, decided once") {
  DevNode node({.extraBroker = "transactionCheckInterval = 600000\n"});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "TxTopic", 2);

  auto sent = sendOk(c, addr, halfSpec("TxTopic", "order-666", "pg_tx"));
  CHECK(extInt(sent, "queueOffset") == 0);
  CHECK(extInt(sent, "queueId") == 1);
  MessageExt half = halfAt(c, addr, 0);
  CHECK(half.topic == kHalf);
  CHECK((half.sysFlag & 0xC) == 0);
  CHECK(propOf(half, "REAL_TOPIC") == "TxTopic");
  CHECK(propOf(half, "REAL_QID") == "1");
  CHECK(maxOffset(c, addr, "TxTopic", 1) == 0);  // invisible to consumers
  std::string uniq = propOf(half, "UNIQ_KEY");

  // Wrong group / offsets are refused and change nothing.
  auto wrong = invoke(c, addr, endTransaction("other", 0, half.commitLogOffset, 8, uniq, false));
  CHECK(wrong.code == ResponseCode::SYSTEM_ERROR);
  CHECK(wrong.remark.value_or("") == "The producer group wrong");
  auto badOffset = invoke(c, addr, endTransaction("pg_tx", 5, half.commitLogOffset, 8, uniq, false));
  CHECK(badOffset.remark.value_or("") == "The transaction state table offset wrong");
  auto missing = invoke(c, addr, endTransaction("pg_tx", 0, half.commitLogOffset + 1, 8, uniq, false));
  CHECK(missing.remark.value_or("") == "Find prepared transaction message failed");

  auto commit = invoke(c, addr, endTransaction("pg_tx", 0, half.commitLogOffset, 8, uniq, false));
  CHECK_MESSAGE(commit.code == 0, commit.remark.value_or(""));
  REQUIRE(dispatched(c, addr, "TxTopic", 1, 1));
  auto committed = pullAt(c, addr, "TxTopic", 1);
  REQUIRE(committed.size() == 1);
  auto& m = committed[0];
  CHECK(m.body == "order-666");
  CHECK((m.sysFlag & 0xC) == 8);  // TRANSACTION_COMMIT_TYPE
  CHECK(m.preparedTransactionOffset == half.commitLogOffset);
  CHECK(propOf(m, "TRAN_MSG") == "true");  // Java keeps them: the string is built before clearing
  CHECK(propOf(m, "REAL_TOPIC") == "TxTopic");
  CHECK(propOf(m, "PGROUP") == "pg_tx");
  CHECK(propOf(m, "KEYS") == "key-order-666");
  CHECK(propOf(m, "TAGS") == "TagT");
  CHECK(propOf(m, "UNIQ_KEY") == uniq);
  // Queryable by key (index) like any message. The dispatch writes the consume queue first and the
  // index right after (as Java's dispatcher list), so the index may trail the wait above.
  net::RemotingCommand byKey;
  CHECK(eventually([&] {
    byKey = invoke(c, addr, request(RequestCode::QUERY_MESSAGE, {{"topic", "TxTopic"}, {"key", "key-order-666"},
                                                                {"maxNum", "32"}, {"beginTimestamp", "0"},
                                                                {"endTimestamp", "9223372036854775807"}}));
    return byKey.code == 0;
  }, std::chrono::seconds(10)));
  auto found = decodeMessages(bodyOf(byKey));
  REQUIRE(found);
  bool inTopic = false;
  for (auto& f : *found) inTopic |= f.topic == "TxTopic" && f.body == "order-666";
  CHECK(inTopic);

  // The op record, exactly as RocketMQ writes it.
  REQUIRE(dispatched(c, addr, kOp, 0, 1));
  auto ops = pullAt(c, addr, kOp, 0, 0, "cg_tx_test");
  REQUIRE(ops.size() == 1);
  CHECK(ops[0].body == "0");
  CHECK(propOf(ops[0], "TAGS") == "d");
  CHECK(propOf(ops[0], "WAIT") == "true");
  CHECK(ops[0].properties.size() == 2);

  // A second commit of the same transaction changes nothing.
  CHECK(invoke(c, addr, endTransaction("pg_tx", 0, half.commitLogOffset, 8, uniq, false)).code == 0);

  // Rollback: an op record, nothing delivered.
  sendOk(c, addr, halfSpec("TxTopic", "order-777", "pg_tx"));
  MessageExt half2 = halfAt(c, addr, 1);
  auto rb = invoke(c, addr, endTransaction("pg_tx", 1, half2.commitLogOffset, 12, propOf(half2, "UNIQ_KEY"), false));
  CHECK(rb.code == 0);
  REQUIRE(dispatched(c, addr, kOp, 0, 2));
  auto ops2 = pullAt(c, addr, kOp, 0, 1, "cg_tx_test");
  REQUIRE(ops2.size() == 1);
  CHECK(ops2[0].body == "1");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(maxOffset(c, addr, "TxTopic", 1) == 1);
  CHECK(maxOffset(c, addr, kOp, 0) == 2);

  // After a kill -9 (memory of decisions lost) a repeated commit still is not applied twice: the
  // committed record is found through the index.
  node.proc.kill();
  REQUIRE(node.restart());
  TestClient c2;
  auto again = invoke(c2, addr, endTransaction("pg_tx", 0, half.commitLogOffset, 8, uniq, false));
  CHECK_MESSAGE(again.code == 0, again.remark.value_or(""));
  REQUIRE(dispatched(c2, addr, kOp, 0, 3));  // its op record, nothing else
  CHECK(maxOffset(c2, addr, "TxTopic", 1) == 1);

  // rejectTransactionMessage: half messages refused with NO_PERMISSION.
  auto cfg = invoke(c2, addr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, "rejectTransactionMessage=true\n"));
  REQUIRE(cfg.code == 0);
  auto refused = invoke(c2, addr, sendRequest(halfSpec("TxTopic", "order-000", "pg_tx")));
  CHECK(refused.code == ResponseCode::NO_PERMISSION);
}

TEST_CASE("broker transaction: check-back to the producer, discard after transactionCheckMax, kill -9 before the decision") {
  DevNode node({.extraBroker = "transactionCheckInterval = 300\ntransactionTimeOut = 1000\ntransactionCheckMax = 5\n"});
  REQUIRE(node.start());
  auto addr = node.brokerAddr;
  CheckInbox inbox;
  TestClient producer;
  setUpCheckedProducer(addr, "TxCheck", producer, inbox, "127.0.0.1@tx-1", "pg_check");

  // 888: unknown at first; the check arrives about the renewed copy, the answer commits it.
  sendOk(producer, addr, halfSpec("TxCheck", "order-888", "pg_check"));
  bool gotCheck = eventually([&] { return inbox.findByBody("order-888").has_value(); }, std::chrono::seconds(20));
  if (!gotCheck) MESSAGE(node.brokerLog());
  REQUIRE(gotCheck);
  auto check = *inbox.findByBody("order-888");
  auto checked = decodeMessage(check.body);
  REQUIRE(checked);
  CHECK(checked->topic == "TxCheck");  // body re-targeted to REAL_TOPIC / REAL_QID
  CHECK(checked->queueId == 1);
  // The k-th check is about the k-th renewed copy (half offset k), TRANSACTION_CHECK_TIMES = k.
  REQUIRE(checked->property("TRANSACTION_CHECK_TIMES"));
  CHECK(std::to_string(check.extFields.getInt("tranStateTableOffset").value_or(-1)) ==
        propOf(*checked, "TRANSACTION_CHECK_TIMES"));
  CHECK(std::string(check.extFields.get("msgId")) == propOf(*checked, "UNIQ_KEY"));
  // The second check (unanswered first one) is the one answered COMMIT, as the seeds' example.
  REQUIRE(eventually([&] { return inbox.countByBody("order-888") >= 2; }, std::chrono::seconds(20)));
  answer(producer, addr, "pg_check", *inbox.findByBody("order-888"), 8);
  REQUIRE(dispatched(producer, addr, "TxCheck", 1, 1));
  auto got = pullAt(producer, addr, "TxCheck", 1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].body == "order-888");

  // 555: never answered: after 5 checks it goes to TRANS_CHECK_MAX_TIME_TOPIC.
  sendOk(producer, addr, halfSpec("TxCheck", "order-555", "pg_check"));
  REQUIRE(eventually([&] { return maxOffset(producer, addr, "TRANS_CHECK_MAX_TIME_TOPIC", 0) == 1; },
                  std::chrono::seconds(30)));
  CHECK(inbox.countByBody("order-555") == 5);
  auto discarded = pullAt(producer, addr, "TRANS_CHECK_MAX_TIME_TOPIC", 0, 0, "cg_tx_test");
  REQUIRE(discarded.size() == 1);
  CHECK(discarded[0].body == "order-555");

  // 999: the broker dies (kill -9) between the half message and the decision.
  sendOk(producer, addr, halfSpec("TxCheck", "order-999", "pg_check"));
  node.proc.kill();
  REQUIRE(node.restart());
  CheckInbox inbox2;
  TestClient producer2;
  inbox2.attach(producer2);
  REQUIRE(invoke(producer2, addr, heartbeatRequest("127.0.0.1@tx-2", "", {}, {"pg_check"})).code == 0);
  REQUIRE(eventually([&] { return inbox2.findByBody("order-999").has_value(); }, std::chrono::seconds(20)));
  answer(producer2, addr, "pg_check", *inbox2.findByBody("order-999"), 8);
  REQUIRE(dispatched(producer2, addr, "TxCheck", 1, 2));
  // Later rounds neither deliver it again nor check decided transactions again.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  auto all = pullAt(producer2, addr, "TxCheck", 1);
  REQUIRE(all.size() == 2);
  CHECK(all[0].body == "order-888");
  CHECK(all[1].body == "order-999");
  CHECK(inbox2.countByBody("order-888") == 0);
  size_t checks999 = inbox2.countByBody("order-999");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  CHECK(inbox2.countByBody("order-999") == checks999);
}
