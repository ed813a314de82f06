// Java's trace data format (TraceDataEncoder): decoding the record shapes older and newer clients
// write, String.split's dropped trailing fields, and records left out.
#include <doctest/doctest.h>

#include "client/trace_data.h"

using namespace rmq::client::trace;

namespace {
std::string join(std::initializer_list<std::string> fields, char end = kFieldSplitor) {
  std::string s;
  for (auto& f : fields) s += (s.empty() ? "" : std::string(1, kContentSplitor)) + f;
  return s + end;
}
}  // namespace

TEST_CASE("trace data: Pub with and without offsetMsgId and clientHost") {
  auto thirteen = join({"Pub", "1700000000000", "r", "PG", "T", "MID", "tag", "k", "1.2.3.4:10911", "8", "5", "0", "false"});
  auto fourteen = join({"Pub", "1700000000001", "r", "PG", "T", "MID", "tag", "k", "1.2.3.4:10911", "8", "5", "0", "OFF", "true"});
  auto fifteen = join({"Pub", "1700000000002", "r", "PG", "T", "MID", "", "", "h", "8", "5", "1", "OFF", "TRUE", "5.6.7.8"});
  auto recs = decodeTraceData(thirteen + fourteen + fifteen);
  REQUIRE(recs.size() == 3);
  CHECK(recs[0].success == false);
  CHECK(recs[0].offsetMsgId.empty());
  CHECK(recs[0].timeStamp == 1700000000000);
  CHECK(recs[1].offsetMsgId == "OFF");
  CHECK(recs[1].success);
  CHECK(recs[1].costTime == 5);
  CHECK(recs[1].bodyLength == 8);
  CHECK(recs[2].tags.empty());  // empty fields in the middle are kept
  CHECK(recs[2].clientHost == "5.6.7.8");
  CHECK(recs[2].success);       // Boolean.parseBoolean ignores case
  CHECK(recs[2].msgType == 1);
}

TEST_CASE("trace data: SubAfter of old and new clients, SubBefore, EndTransaction") {
  auto oldAfter = join({"SubAfter", "req", "MID", "7", "false", "k"});
  auto cloudAfter = join({"SubAfter", "req", "MID", "7", "true", "k", "2"}, kContentSplitor) + kFieldSplitor;
  auto before = join({"SubBefore", "1700000000000", "r", "CG", "req", "MID", "3", "k"});
  auto end = join({"EndTransaction", "1700000000000", "r", "PG", "T", "MID", "tag", "k", "h", "1", "TX", "COMMIT_MESSAGE", "true"});
  auto recs = decodeTraceData(oldAfter + cloudAfter + before + end);
  REQUIRE(recs.size() == 4);
  CHECK(recs[0].type == TraceType::SubAfter);
  CHECK(recs[0].groupName.empty());
  CHECK(recs[0].timeStamp == 0);
  CHECK(recs[0].success == false);
  CHECK(recs[1].contextCode == 2);  // a trailing splitor leaves no empty field (String.split)
  CHECK(recs[2].type == TraceType::SubBefore);
  CHECK(recs[2].retryTimes == 3);
  CHECK(recs[2].groupName == "CG");
  CHECK(recs[3].type == TraceType::EndTransaction);
  CHECK(recs[3].transactionState == "COMMIT_MESSAGE");
  CHECK(recs[3].fromTransactionCheck);
}

TEST_CASE("trace data: unknown types, short records and bad numbers are left out; encode round-trips") {
  auto unknown = join({"Other", "1"});
  auto shortPub = join({"Pub", "1", "r"});
  auto badNumber = join({"SubAfter", "req", "MID", "x7", "true", "k"});
  CHECK(decodeTraceData(unknown + shortPub + badNumber + std::string(1, kFieldSplitor)).empty());
  CHECK(decodeTraceData("").empty());

  TraceRecord after;
  after.type = TraceType::SubAfter;
  after.requestId = "req";
  after.msgId = "MID";
  after.costTime = 9;
  after.success = false;
  after.keys = "a b";
  after.timeStamp = 1700000000123;
  after.groupName = "CG";
  auto text = encodeTraceRecord(after);
  CHECK(text.back() == kFieldSplitor);
  auto back = decodeTraceData(text);
  REQUIRE(back.size() == 1);
  CHECK(back[0].groupName == "CG");
  CHECK(back[0].timeStamp == 1700000000123);
  CHECK(back[0].keys == "a b");
  CHECK(back[0].costTime == 9);
  CHECK(back[0].success == false);
}
