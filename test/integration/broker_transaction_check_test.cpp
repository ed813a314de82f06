// Java 4.9.8's check-back conditions (TransactionalMessageServiceImpl.check) on a real rmqnode:
// CHECK_IMMUNITY_TIME_IN_SECONDS puts a young half message back unchecked with
// TRAN_PREPARED_QUEUE_OFFSET = the original's half offset (counted as a check), a decision about
// the original ends its copies, a long immunity runs into transactionCheckMax (Java's needDiscard
// counts the put-backs), a half message born longer ago than fileReservedTime is discarded
// (needSkip), and op records spread over several 32-record batches are all honoured.
// transactionTimeOut is 3 s so that the producer's own decisions come well before any check.
#include <doctest/doctest.h>

#include <thread>

#include "broker_transaction_helpers.h"
#include "dev_node.h"
#include "common/message_id.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::test::tx;

namespace {

int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t sysOffset(TestClient& c, const std::string& addr, const std::string& topic) {
  auto r = invoke(c, addr,
                  request(RequestCode::QUERY_CONSUMER_OFFSET,
                          {{"consumerGroup", "CID_RMQ_SYS_TRANS"}, {"topic", topic}, {"queueId", "0"}}));
  return r.code == 0 ? r.extFields.getInt("offset").value_or(-1) : -1;
}

}  // namespace

TEST_CASE("broker transaction: Java's check conditions (immunity put-back, prepared queue offset, discard, op batches)") {
  DevNode node({.extraBroker = "transactionCheckInterval = 300\ntransactionTimeOut = 3000\ntransactionCheckMax = 15\n"});
  REQUIRE(node.start());
  auto addr = node.brokerAddr;
  CheckInbox inbox;
  TestClient producer;
  setUpCheckedProducer(addr, "TxImm", producer, inbox, "127.0.0.1@tx-imm", "pg_imm");

  // B: immune for 30 s; put back (copies carry B's half offset) until the producer decides the original.
  auto specB = halfSpec("TxImm", "imm-b", "pg_imm");
  specB.extraProps.push_back({"CHECK_IMMUNITY_TIME_IN_SECONDS", "30"});
  auto sentB = sendOk(producer, addr, specB);
  const int64_t halfB = extInt(sentB, "queueOffset");
  REQUIRE(eventually([&] { return halvesOf(producer, addr, "imm-b").size() >= 3; }, std::chrono::seconds(20)));
  auto copiesB = halvesOf(producer, addr, "imm-b");
  for (size_t i = 1; i < copiesB.size(); ++i) {
    CHECK(propOf(copiesB[i], "TRAN_PREPARED_QUEUE_OFFSET") == std::to_string(halfB));
    CHECK(propOf(copiesB[i], "TRANSACTION_CHECK_TIMES") == std::to_string(i));  // Java's needDiscard counts them
    CHECK(propOf(copiesB[i], "UNIQ_KEY") == propOf(copiesB[0], "UNIQ_KEY"));
  }
  CHECK(propOf(copiesB[0], "TRAN_PREPARED_QUEUE_OFFSET") == "<none>");
  auto r = invoke(producer, addr,
                  endTransaction("pg_imm", halfB, copiesB[0].commitLogOffset, 8, propOf(copiesB[0], "UNIQ_KEY"), false));
  REQUIRE(r.code == 0);
  REQUIRE(dispatched(producer, addr, "TxImm", 1, 1));

  // A: immune for 2 s, then checked like any other (about a put-back copy).
  auto specA = halfSpec("TxImm", "imm-a", "pg_imm");
  specA.extraProps.push_back({"CHECK_IMMUNITY_TIME_IN_SECONDS", "2"});
  const int64_t bornA = specA.bornTimestamp;
  auto sentA = sendOk(producer, addr, specA);
  const int64_t halfA = extInt(sentA, "queueOffset");
  REQUIRE(eventually([&] { return inbox.findByBody("imm-a").has_value(); }, std::chrono::seconds(20)));
  CHECK(nowMs() - bornA >= 2000);  // not before its immunity ended
  auto checkA = decodeMessage(inbox.findByBody("imm-a")->body);
  REQUIRE(checkA);
  CHECK(propOf(*checkA, "TRAN_PREPARED_QUEUE_OFFSET") == std::to_string(halfA));
  CHECK(std::stoi(propOf(*checkA, "TRANSACTION_CHECK_TIMES")) >= 2);  // put-backs + this check
  answer(producer, addr, "pg_imm", *inbox.findByBody("imm-a"), 12);  // rolled back

  // C: immune for 10 minutes: after transactionCheckMax put-backs it is discarded, never checked.
  auto specC = halfSpec("TxImm", "imm-c", "pg_imm");
  specC.extraProps.push_back({"CHECK_IMMUNITY_TIME_IN_SECONDS", "600"});
  sendOk(producer, addr, specC);
  // D: born before fileReservedTime (72 h): discarded at the first round (needSkip).
  auto specD = halfSpec("TxImm", "old-d", "pg_imm");
  specD.bornTimestamp = nowMs() - 80LL * 3600 * 1000;
  sendOk(producer, addr, specD);
  REQUIRE(eventually([&] { return maxOffset(producer, addr, "TRANS_CHECK_MAX_TIME_TOPIC", 0) == 2; },
                     std::chrono::seconds(40)));
  auto discarded = pullAt(producer, addr, "TRANS_CHECK_MAX_TIME_TOPIC", 0);
  REQUIRE(discarded.size() == 2);
  CHECK(discarded[0].body == "old-d");
  CHECK(discarded[1].body == "imm-c");
  CHECK(propOf(discarded[1], "TRANSACTION_CHECK_TIMES") == "15");
  CHECK(inbox.countByBody("imm-c") == 0);
  CHECK(inbox.countByBody("old-d") == 0);
  CHECK(inbox.countByBody("imm-b") == 0);  // decided through its original: copies passed, never checked
  const size_t copiesAfter = halvesOf(producer, addr, "imm-b").size();

  // E: 40 half messages, all but one decided by the producer in reverse order: op records over
  // two batches of 32; only the undecided one is checked, and the op offset passes them all.
  std::vector<net::RemotingCommand> sentE;
  for (int i = 0; i < 40; ++i) sentE.push_back(sendOk(producer, addr, halfSpec("TxImm", "e-" + std::to_string(i), "pg_imm")));
  for (int i = 39; i >= 0; --i) {  // decided well within transactionTimeOut (3 s): never checked
    if (i == 17) continue;
    auto id = parseOffsetMsgId(sentE[i].extFields.get("msgId"));
    REQUIRE(id);
    auto e = invoke(producer, addr,
                    endTransaction("pg_imm", extInt(sentE[i], "queueOffset"), id->commitLogOffset, 8,
                                   "7F0000010000e-" + std::to_string(i), false));
    REQUIRE(e.code == 0);
  }
  REQUIRE(eventually([&] { return inbox.findByBody("e-17").has_value(); }, std::chrono::seconds(20)));
  answer(producer, addr, "pg_imm", *inbox.findByBody("e-17"), 8);
  REQUIRE(dispatched(producer, addr, "TxImm", 1, 41));
  for (int i = 0; i < 40; ++i)
    if (i != 17) CHECK_MESSAGE(inbox.countByBody("e-" + std::to_string(i)) == 0, "e-", i, " was decided, never checked");
  const int64_t opEnd = maxOffset(producer, addr, kOp, 0);
  CHECK(eventually([&] { return sysOffset(producer, addr, kOp) == opEnd; }, std::chrono::seconds(20)));
  CHECK(eventually([&] { return sysOffset(producer, addr, kHalf) == maxOffset(producer, addr, kHalf, 0); },
                   std::chrono::seconds(20)));
  CHECK(halvesOf(producer, addr, "imm-b").size() == copiesAfter);  // no more copies of B
}
