// Broker send and pull over real sockets against `rmqnode --role=namesrv,master`.
#include <doctest/doctest.h>

#include "broker_calls.h"
#include "client/request_headers.h"
#include "common/message_id.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "namesrv_client.h"

using namespace rmq;
using namespace rmq::test;

TEST_CASE("broker send: codes 10, 310, 320 store messages and answer every send field") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;

  auto v1 = c.call(addr, sendRequest({.topic = "SendT", .body = "one", .tags = "TagA", .code = 10}));
  REQUIRE(v1.ok());
  CHECK(v1->code == ResponseCode::SUCCESS);
  CHECK(v1->extFields.get("MSG_REGION") == "DefaultRegion");
  CHECK(v1->extFields.get("TRACE_ON") == "true");
  CHECK(extInt(*v1, "queueId") == 0);
  CHECK(extInt(*v1, "queueOffset") == 0);
  auto id = parseOffsetMsgId(v1->extFields.get("msgId"));
  REQUIRE(id.has_value());
  CHECK(id->storeHost.toString() == addr);  // store host = brokerIP1:listenPort

  auto v2 = c.call(addr, sendRequest({.topic = "SendT", .body = "two", .code = 310}));
  REQUIRE(v2.ok());
  CHECK(v2->code == ResponseCode::SUCCESS);
  CHECK(extInt(*v2, "queueOffset") == 1);

  std::vector<Message> batch(3);
  for (int i = 0; i < 3; ++i) batch[i].body = "b" + std::to_string(i), batch[i].topic = "SendT";
  auto b = c.call(addr, batchRequest("SendT", 0, batch));
  REQUIRE(b.ok());
  CHECK(b->code == ResponseCode::SUCCESS);
  CHECK(extInt(*b, "queueOffset") == 2);
  std::string ids(b->extFields.get("msgId"));
  CHECK(std::count(ids.begin(), ids.end(), ',') == 2);

  REQUIRE(dispatched(c, addr, "SendT", 0, 5));
  auto pulled = c.call(addr, pullRequest({.topic = "SendT"}));
  REQUIRE(pulled.ok());
  REQUIRE(pulled->code == ResponseCode::SUCCESS);
  auto msgs = pulledMessages(*pulled);
  REQUIRE(msgs.size() == 5);
  CHECK(msgs[0].body == "one");
  CHECK(msgs[0].tags() == "TagA");
  CHECK(msgs[0].property("CLUSTER") != nullptr);
  CHECK(msgs[0].property("WAIT") == nullptr);  // stripped before storing
  CHECK(msgs[0].bornHost.toString().rfind("127.0.0.1:", 0) == 0);  // IPv4 born host
  CHECK_FALSE(msgs[0].bornHost.v6);
  CHECK(msgs[4].body == "b2");
  CHECK(msgs[4].queueOffset == 4);
}

TEST_CASE("broker send: MESSAGE_ILLEGAL, TOPIC_NOT_EXIST, NO_PERMISSION, bad headers; server keeps serving") {
  DevNode node({.extraStore = "maxMessageSize = 1024"});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;

  auto badName = c.call(addr, sendRequest({.topic = "bad topic!"}));
  REQUIRE(badName.ok());
  CHECK(badName->code == ResponseCode::MESSAGE_ILLEGAL);
  CHECK(badName->extFields.contains("MSG_REGION"));

  auto tooBig = c.call(addr, sendRequest({.topic = "BigT", .body = std::string(2048, 'x')}));
  REQUIRE(tooBig.ok());
  CHECK(tooBig->code == ResponseCode::MESSAGE_ILLEGAL);

  auto noTopic = c.call(addr, sendRequest({.topic = "NoSuchT", .defaultTopic = "NoDefault"}));
  REQUIRE(noTopic.ok());
  CHECK(noTopic->code == ResponseCode::TOPIC_NOT_EXIST);

  auto forbidden = c.call(addr, sendRequest({.topic = "SCHEDULE_TOPIC_XXXX"}));
  REQUIRE(forbidden.ok());
  CHECK(forbidden->code == ResponseCode::NO_PERMISSION);

  auto bad = net::RemotingCommand::request(RequestCode::SEND_MESSAGE_V2);
  bad.extFields.set("b", "T");  // required fields missing
  auto badHeader = c.call(addr, std::move(bad));
  REQUIRE(badHeader.ok());
  CHECK(badHeader->code == ResponseCode::SYSTEM_ERROR);

  auto ok = c.call(addr, sendRequest({.topic = "BigT", .body = "small"}));
  REQUIRE(ok.ok());
  CHECK(ok->code == ResponseCode::SUCCESS);
}

TEST_CASE("broker pull: statuses, offsets fields, tag filter, offset moved") {
  DevNode node({.propertyFilter = false});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  std::vector<SendSpec> sends;
  for (int i = 0; i < 6; ++i) sends.push_back({.topic = "PullT", .body = "m" + std::to_string(i), .tags = i % 2 ? "TagB" : "TagA"});
  sendDispatched(c, addr, sends);
  auto all = c.call(addr, pullRequest({.topic = "PullT", .maxMsgNums = 4}));
  REQUIRE(all.ok());
  REQUIRE(all->code == ResponseCode::SUCCESS);
  CHECK(pulledMessages(*all).size() == 4);
  CHECK(extInt(*all, "nextBeginOffset") == 4);
  CHECK(extInt(*all, "minOffset") == 0);
  CHECK(extInt(*all, "maxOffset") == 6);
  CHECK(extInt(*all, "suggestWhichBrokerId") == 0);

  auto tagB = c.call(addr, pullRequest({.topic = "PullT", .subscription = "TagB"}));
  REQUIRE(tagB.ok());
  REQUIRE(tagB->code == ResponseCode::SUCCESS);
  auto bs = pulledMessages(*tagB);
  REQUIRE(bs.size() == 3);
  for (auto& m : bs) CHECK(m.tags() == "TagB");

  auto none = c.call(addr, pullRequest({.topic = "PullT", .offset = 5, .subscription = "TagZ"}));
  REQUIRE(none.ok());
  CHECK(none->code == ResponseCode::PULL_RETRY_IMMEDIATELY);
  CHECK(extInt(*none, "nextBeginOffset") == 6);

  auto atEnd = c.call(addr, pullRequest({.topic = "PullT", .offset = 6}));
  REQUIRE(atEnd.ok());
  CHECK(atEnd->code == ResponseCode::PULL_NOT_FOUND);
  CHECK(extInt(*atEnd, "nextBeginOffset") == 6);
  CHECK(extInt(*atEnd, "maxOffset") == 6);

  auto beyond = c.call(addr, pullRequest({.topic = "PullT", .offset = 50}));
  REQUIRE(beyond.ok());
  CHECK(beyond->code == ResponseCode::PULL_OFFSET_MOVED);
  CHECK(extInt(*beyond, "nextBeginOffset") == 0);  // Java: minOffset when the queue starts at 0

  auto emptyQueue = c.call(addr, pullRequest({.topic = "PullT", .queueId = 1}));
  REQUIRE(emptyQueue.ok());
  CHECK(emptyQueue->code == ResponseCode::PULL_NOT_FOUND);
  for (auto key : {"nextBeginOffset", "minOffset", "maxOffset", "suggestWhichBrokerId"})
    CHECK(emptyQueue->extFields.contains(key));

  auto noTopic = c.call(addr, pullRequest({.topic = "NeverCreated"}));
  REQUIRE(noTopic.ok());
  CHECK(noTopic->code == ResponseCode::TOPIC_NOT_EXIST);

  auto noSub = c.call(addr, pullRequest({.group = "offline", .topic = "PullT", .sysFlag = 0}));
  REQUIRE(noSub.ok());
  CHECK(noSub->code == ResponseCode::SUBSCRIPTION_NOT_EXIST);

  auto sql = c.call(addr, pullRequest({.topic = "PullT", .subscription = "a > 1", .expressionType = "SQL92"}));
  REQUIRE(sql.ok());
  CHECK(sql->code == ResponseCode::SYSTEM_ERROR);  // enablePropertyFilter=false
}

TEST_CASE("broker pull: SQL92 filter when enablePropertyFilter=true; parse errors are code 23") {
  DevNode node;  // SQL92 filtering is on
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  std::vector<SendSpec> sends;
  for (int i = 0; i < 4; ++i) sends.push_back({.topic = "SqlT", .extraProps = {{"a", std::to_string(i)}}});
  sendDispatched(c, addr, sends);
  auto hit = c.call(addr, pullRequest({.topic = "SqlT", .subscription = "a >= 2", .expressionType = "SQL92"}));
  REQUIRE(hit.ok());
  REQUIRE(hit->code == ResponseCode::SUCCESS);
  auto ms = pulledMessages(*hit);
  REQUIRE(ms.size() == 2);
  CHECK(*ms[0].property("a") == "2");
  auto bad = c.call(addr, pullRequest({.topic = "SqlT", .subscription = "a >>= 2", .expressionType = "SQL92"}));
  REQUIRE(bad.ok());
  CHECK(bad->code == ResponseCode::SUBSCRIPTION_PARSE_FAILED);
}

TEST_CASE("broker offsets: queue positions, new-group offset 0, commit and piggy-backed commit") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  sendDispatched(c, addr, {{.topic = "OffT", .queueId = 2}, {.topic = "OffT", .queueId = 2}, {.topic = "OffT", .queueId = 2}});
  auto maxOff = c.call(addr, client::makeQueueOffsetRequest(RequestCode::GET_MAX_OFFSET, "OffT", 2));
  REQUIRE(maxOff.ok());
  CHECK(extInt(*maxOff, "offset") == 3);
  auto minOff = c.call(addr, client::makeQueueOffsetRequest(RequestCode::GET_MIN_OFFSET, "OffT", 2));
  REQUIRE(minOff.ok());
  CHECK(extInt(*minOff, "offset") == 0);
  auto earliest = c.call(addr, client::makeQueueOffsetRequest(RequestCode::GET_EARLIEST_MSG_STORETIME, "OffT", 2));
  REQUIRE(earliest.ok());
  CHECK(extInt(*earliest, "timestamp") > 1600000000000);
  auto search = c.call(addr, client::makeSearchOffset("OffT", 2, 0));
  REQUIRE(search.ok());
  CHECK(extInt(*search, "offset") == 0);

  auto fresh = c.call(addr, client::makeQueryConsumerOffset("newGroup", "OffT", 2));
  REQUIRE(fresh.ok());
  CHECK(fresh->code == ResponseCode::SUCCESS);  // queue starts at 0: consume from 0 (§8.6)
  CHECK(extInt(*fresh, "offset") == 0);

  REQUIRE(c.call(addr, client::makeUpdateConsumerOffset("g1", "OffT", 2, 2)).ok());
  auto q = c.call(addr, client::makeQueryConsumerOffset("g1", "OffT", 2));
  REQUIRE(q.ok());
  CHECK(extInt(*q, "offset") == 2);
  auto minusOne = c.call(addr, client::makeUpdateConsumerOffset("g1", "OffT", 1, -1));
  REQUIRE(minusOne.ok());
  CHECK(minusOne->code == ResponseCode::SUCCESS);

  // Pull with COMMIT_OFFSET stores the commit offset it carries.
  auto p = c.call(addr, pullRequest({.group = "g2", .topic = "OffT", .queueId = 2, .sysFlag = 0x4 | 0x1, .commitOffset = 1}));
  REQUIRE(p.ok());
  auto q2 = c.call(addr, client::makeQueryConsumerOffset("g2", "OffT", 2));
  REQUIRE(q2.ok());
  CHECK(extInt(*q2, "offset") == 1);
}
