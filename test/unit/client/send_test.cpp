#include <doctest/doctest.h>

#include <set>

#include "client/producer/latency_fault.h"
#include "client/request_headers.h"
#include "common/request_code.h"
#include "common/response_code.h"

using namespace rmq::client;
namespace rc = rmq::ResponseCode;

TEST_CASE("SEND_MESSAGE_V2 header uses one-letter keys and round-trips") {
  SendMessageHeader h;
  h.producerGroup = "pg";
  h.topic = "TopicTest";
  h.queueId = 3;
  h.sysFlag = 0x301;
  h.bornTimestamp = 1700000000123;
  h.flag = 7;
  h.properties = "TAGS\x01" "A";
  h.maxReconsumeTimes = 16;
  h.brokerName = "broker-a";
  auto cmd = makeSendRequest(h, "body");
  CHECK(cmd.code == rmq::RequestCode::SEND_MESSAGE_V2);
  const auto& f = cmd.extFields;
  CHECK(f.get("a") == "pg");
  CHECK(f.get("b") == "TopicTest");
  CHECK(f.get("c") == "TBW102");
  CHECK(f.get("d") == "4");
  CHECK(f.get("e") == "3");
  CHECK(f.get("f") == "769");
  CHECK(f.get("g") == "1700000000123");
  CHECK(f.get("h") == "7");
  CHECK(f.get("i") == "TAGS\x01" "A");
  CHECK(f.get("j") == "0");
  CHECK(f.get("k") == "false");
  CHECK(f.get("l") == "16");
  CHECK(f.get("m") == "false");
  CHECK(f.get("n") == "broker-a");
  CHECK_FALSE(f.contains("producerGroup"));
  auto back = decodeSendHeader(f, true);
  REQUIRE(back.ok());
  CHECK(back->topic == "TopicTest");
  CHECK(back->sysFlag == 0x301);
  CHECK(back->bornTimestamp == 1700000000123);
  CHECK(back->maxReconsumeTimes == 16);
  CHECK(back->properties == h.properties);

  h.batch = true;
  CHECK(makeSendRequest(h, "").code == rmq::RequestCode::SEND_BATCH_MESSAGE);
  rmq::net::ExtFields v1;
  encodeSendHeaderV1(h, v1);
  CHECK(v1.get("producerGroup") == "pg");
  auto b1 = decodeSendHeader(v1, false);
  REQUIRE(b1.ok());
  CHECK(b1->batch);
  rmq::net::ExtFields broken;
  broken.set("a", "pg");
  auto bad = decodeSendHeader(broken, true);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("<b>") != std::string::npos);
}

TEST_CASE("pull header carries every required field and round-trips") {
  PullMessageHeader h;
  h.consumerGroup = "cg";
  h.topic = "T";
  h.queueId = 2;
  h.queueOffset = 99;
  h.sysFlag = kPullSuspend | kPullSubscription;
  h.suspendTimeoutMillis = 15000;
  h.subscription = "A || B";
  h.expressionType = "TAG";
  auto cmd = makePullRequest(h);
  CHECK(cmd.code == rmq::RequestCode::PULL_MESSAGE);
  CHECK(cmd.extFields.get("commitOffset") == "0");
  CHECK(cmd.extFields.get("subVersion") == "0");
  CHECK(cmd.extFields.get("sysFlag") == "6");
  auto back = decodePullHeader(cmd.extFields);
  REQUIRE(back.ok());
  CHECK(back->queueOffset == 99);
  CHECK(back->subscription == "A || B");
  CHECK(back->maxMsgNums == 32);
}

TEST_CASE("send retries happen only for the codes PROTOCOL.md 2.1 lists and transport errors") {
  for (int code : {17, 14, 1, 16, 204, 205, rc::CLIENT_TIMEOUT, rc::CLIENT_CONNECT_FAILED, rc::CLIENT_CONNECTION_CLOSED,
                   rc::CLIENT_TOO_MUCH_REQUEST})
    CHECK_MESSAGE(isRetryableSendCode(code), code);
  for (int code : {13, 2, 3, 15, 23, 26, 215}) CHECK_FALSE_MESSAGE(isRetryableSendCode(code), code);
  // Java's addRetryResponseCode(SYSTEM_BUSY): a busy broker's answer moves the send elsewhere.
  CHECK(isRetryableSendCode(rc::SYSTEM_BUSY, {rc::SYSTEM_BUSY}));
  CHECK_FALSE(isRetryableSendCode(rc::MESSAGE_ILLEGAL, {rc::SYSTEM_BUSY}));
}

TEST_CASE("latency fault tolerance isolates slow and failed brokers for Java's durations") {
  CHECK(LatencyFaultTolerance::notAvailableDurationFor(10) == 0);
  CHECK(LatencyFaultTolerance::notAvailableDurationFor(100) == 0);
  CHECK(LatencyFaultTolerance::notAvailableDurationFor(550) == 30000);
  CHECK(LatencyFaultTolerance::notAvailableDurationFor(1999) == 60000);
  CHECK(LatencyFaultTolerance::notAvailableDurationFor(3000) == 180000);
  CHECK(LatencyFaultTolerance::notAvailableDurationFor(30000) == 600000);
  LatencyFaultTolerance lf;
  lf.updateFaultItem("a", 0, true, 1000);  // failure = 30 s latency -> 600 s isolation
  CHECK_FALSE(lf.isAvailable("a", 1000 + 599999));
  CHECK(lf.isAvailable("a", 1000 + 600000));
  CHECK(lf.isAvailable("unknown", 0));
  lf.updateFaultItem("b", 20, false, 1000);
  CHECK(lf.isAvailable("b", 1000));
}

TEST_CASE("queue selection: round robin, avoids the failed broker, skips isolated brokers") {
  std::vector<MessageQueue> qs{{"T", "a", 0}, {"T", "a", 1}, {"T", "b", 0}, {"T", "b", 1}};
  QueueSelector plain(false);
  std::set<std::pair<std::string, int>> seen;
  for (int i = 0; i < 4; ++i) {
    auto q = plain.select(qs, "", 0);
    seen.insert({q.brokerName, q.queueId});
  }
  CHECK(seen.size() == 4);
  for (int i = 0; i < 8; ++i) CHECK(plain.select(qs, "a", 0).brokerName == "b");

  QueueSelector faulty(true);
  faulty.update("a", 0, true, 1000);
  for (int i = 0; i < 8; ++i) CHECK(faulty.select(qs, "", 2000).brokerName == "b");
  faulty.update("b", 0, true, 1000);  // everything isolated: still returns a queue
  auto q = faulty.select(qs, "", 2000);
  CHECK((q.brokerName == "a" || q.brokerName == "b"));
  for (int i = 0; i < 4; ++i) CHECK(faulty.select(qs, "", 1000 + 600000).queueId >= 0);
  QueueSelector off(false);
  off.update("a", 0, true, 1000);  // disabled: no isolation recorded
  CHECK(off.faults().isAvailable("a", 1000));
}
