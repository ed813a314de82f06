#include <doctest/doctest.h>

#include "client/broker_api.h"
#include "common/message_codec.h"
#include "common/response_code.h"

using namespace rmq;
using namespace rmq::client;

namespace {

std::string record(int64_t queueOffset, const std::string& tags, const std::string& body, bool compress = false) {
  MessageExt m;
  m.topic = "TopicTest";
  m.queueId = 1;
  m.queueOffset = queueOffset;
  m.commitLogOffset = 1000 + queueOffset * 200;
  m.bornTimestamp = 1700000000000;
  m.storeTimestamp = 1700000000005;
  HostAddress::parse("127.0.0.1:5555", m.bornHost);
  HostAddress::parse("127.0.0.1:10911", m.storeHost);
  if (!tags.empty()) m.putProperty(prop::TAGS, tags);
  m.putProperty(prop::UNIQ_KEY, "UNIQ" + std::to_string(queueOffset));
  m.body = compress ? zlibCompress(body) : body;
  if (compress) m.sysFlag = sysflag::COMPRESSED | sysflag::COMPRESSION_ZLIB;
  m.bodyCRC = crc32Masked(m.body);
  return encodeMessageExt(m);
}

net::RemotingCommand pullResponse(int code, std::string body) {
  auto r = net::RemotingCommand::response(code);
  r.extFields.set("nextBeginOffset", int64_t{13});
  r.extFields.set("minOffset", int64_t{0});
  r.extFields.set("maxOffset", int64_t{20});
  r.extFields.set("suggestWhichBrokerId", int64_t{0});
  r.body = std::move(body);
  return r;
}

}  // namespace

TEST_CASE("a FOUND pull body decodes into messages with inflated bodies and offsets") {
  std::string big(5000, 'x');
  auto resp = pullResponse(ResponseCode::SUCCESS, record(10, "TagA", "hello") + record(11, "", big, true));
  auto r = processPullResponse(resp, nullptr);
  REQUIRE(r.ok());
  CHECK(r->status == PullStatus::FOUND);
  CHECK(r->nextBeginOffset == 13);
  CHECK(r->maxOffset == 20);
  REQUIRE(r->messages.size() == 2);
  CHECK(r->messages[0].body == "hello");
  CHECK(r->messages[0].tags() == "TagA");
  CHECK(r->messages[0].queueOffset == 10);
  CHECK(r->messages[0].commitLogOffset == 3000);
  CHECK(*r->messages[0].property(prop::UNIQ_KEY) == "UNIQ10");
  CHECK(*r->messages[0].property(prop::MAX_OFFSET) == "20");
  CHECK(r->messages[1].body == big);
  CHECK(r->messages[0].offsetMsgId().size() == 32);
}

TEST_CASE("the client re-checks tags after the broker's hash filter") {
  auto f = filter::compileExpression(filter::ExpressionType::Tag, "TagA || TagB");
  REQUIRE(f.ok());
  auto resp = pullResponse(0, record(1, "TagA", "a") + record(2, "TagC", "c") + record(3, "", "none") +
                                  record(4, "TagB", "b"));
  auto r = processPullResponse(resp, &f.value());
  REQUIRE(r.ok());
  REQUIRE(r->messages.size() == 2);
  CHECK(r->messages[0].body == "a");
  CHECK(r->messages[1].body == "b");
  auto star = filter::compileExpression(filter::ExpressionType::Tag, "*");
  CHECK(processPullResponse(resp, &star.value())->messages.size() == 4);
}

TEST_CASE("pull response codes map to pull statuses; others are errors with the remark") {
  CHECK(processPullResponse(pullResponse(19, ""), nullptr)->status == PullStatus::NO_NEW_MSG);
  CHECK(processPullResponse(pullResponse(20, ""), nullptr)->status == PullStatus::NO_MATCHED_MSG);
  auto moved = processPullResponse(pullResponse(21, ""), nullptr);
  CHECK(moved->status == PullStatus::OFFSET_ILLEGAL);
  CHECK(moved->nextBeginOffset == 13);
  auto err = net::RemotingCommand::response(ResponseCode::SUBSCRIPTION_NOT_EXIST, std::string("no sub"));
  auto r = processPullResponse(err, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == 24);
  CHECK(r.error().message == "no sub");
  auto corrupt = processPullResponse(pullResponse(0, record(1, "A", "x").substr(0, 40)), nullptr);
  CHECK_FALSE(corrupt.ok());
}
