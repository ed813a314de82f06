// Long polling and pipelining on one connection, over real sockets.
#include <doctest/doctest.h>

#include <future>
#include <thread>

#include "broker_calls.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "http_get.h"
#include "net/frame_codec.h"
#include "raw_conn.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {
// The broker holds `n` parked pulls (its rmqnode_pull_parked gauge): what the tests below wait on
// before they send, stop, or pipeline; a fixed pause is no proof the async pull even left yet.
bool parkedNow(const DevNode& node, double n) {
  return eventually([&] { return parkedPulls(node.httpPort) == n; }, 10s);
}
}  // namespace

TEST_CASE("broker long poll: a parked pull is answered by the next matching send, well before its timeout") {
  DevNode node({.http = true});
  REQUIRE(node.start());
  TestClient consumer, producer;
  auto addr = node.brokerAddr;
  sendDispatched(producer, addr, {{.topic = "LpT", .tags = "TagA"}});  // creates the topic

  auto start = std::chrono::steady_clock::now();
  auto parked = std::async(std::launch::async, [&] {
    return consumer.call(addr, pullRequest({.topic = "LpT", .offset = 1, .sysFlag = 0x4 | 0x2, .subscription = "TagA",
                                            .suspendMillis = 15000}),
                         30s);
  });
  REQUIRE(parkedNow(node, 1));
  CHECK(parked.wait_for(500ms) == std::future_status::timeout);  // parked, not answered
  // A non-matching message does not wake it; the matching one does.
  REQUIRE(producer.call(addr, sendRequest({.topic = "LpT", .tags = "TagB"})).ok());
  CHECK(parked.wait_for(300ms) == std::future_status::timeout);
  REQUIRE(producer.call(addr, sendRequest({.topic = "LpT", .body = "wake", .tags = "TagA"})).ok());
  REQUIRE(parked.wait_for(10s) == std::future_status::ready);
  auto resp = parked.get();
  REQUIRE(resp.ok());
  CHECK(std::chrono::steady_clock::now() - start < 10s);
  REQUIRE(resp->code == ResponseCode::SUCCESS);
  auto msgs = pulledMessages(*resp);
  REQUIRE(msgs.size() == 1);
  CHECK(msgs[0].body == "wake");
  CHECK(extInt(*resp, "nextBeginOffset") == 3);
}

TEST_CASE("broker long poll: timeout answers PULL_NOT_FOUND; short polling when long polling is off") {
  DevNode node({.extraBroker = "longPollingEnable = false\nshortPollingTimeMills = 300"});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  sendDispatched(c, addr, {{.topic = "ToT"}});
  auto start = std::chrono::steady_clock::now();
  auto r = c.call(addr, pullRequest({.topic = "ToT", .offset = 1, .sysFlag = 0x4 | 0x2, .suspendMillis = 15000}), 30s);
  auto took = std::chrono::steady_clock::now() - start;
  REQUIRE_OK(r);
  CHECK(r->code == ResponseCode::PULL_NOT_FOUND);
  CHECK(took >= 300ms);  // parked for shortPollingTimeMills, not the requested 15 s
  CHECK(took < 10s);
  CHECK(extInt(*r, "nextBeginOffset") == 1);
}

TEST_CASE("broker pipelining: a parked pull does not hold SYNC_FLUSH sends or queries on the same connection") {
  DevNode node({.extraStore = "flushDiskType = \"SYNC_FLUSH\"", .http = true});
  REQUIRE(node.start());
  TestClient c;  // one connection for everything below
  auto addr = node.brokerAddr;
  REQUIRE(c.call(addr, sendRequest({.topic = "PipeT", .queueId = 0})).ok());
  auto parked = std::async(std::launch::async, [&] {
    return c.call(addr, pullRequest({.topic = "PipeT", .queueId = 1, .sysFlag = 0x4 | 0x2, .suspendMillis = 15000}), 30s);
  });
  REQUIRE(parkedNow(node, 1));
  // These travel on the same connection while the pull is parked.
  for (int i = 0; i < 5; ++i) {
    auto s = c.call(addr, sendRequest({.topic = "PipeT", .queueId = 0}), 5s);
    REQUIRE(s.ok());
    CHECK(s->code == ResponseCode::SUCCESS);
  }
  CHECK(parked.wait_for(0ms) == std::future_status::timeout);
  auto wake = c.call(addr, sendRequest({.topic = "PipeT", .body = "q1", .queueId = 1}), 5s);
  REQUIRE(wake.ok());
  CHECK(wake->code == ResponseCode::SUCCESS);
  REQUIRE(parked.wait_for(10s) == std::future_status::ready);
  auto r = parked.get();
  REQUIRE_OK(r);
  CHECK(r->code == ResponseCode::SUCCESS);
  CHECK(pulledMessages(*r).at(0).body == "q1");
}

TEST_CASE("broker shutdown answers parked pulls") {
  DevNode node({.http = true});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  sendDispatched(c, addr, {{.topic = "ShutT"}});
  auto parked = std::async(std::launch::async, [&] {
    return c.call(addr, pullRequest({.topic = "ShutT", .offset = 1, .sysFlag = 0x4 | 0x2, .suspendMillis = 15000}), 30s);
  });
  REQUIRE(parkedNow(node, 1));
  CHECK(node.proc.stop() == 0);
  REQUIRE(parked.wait_for(5s) == std::future_status::ready);
  auto r = parked.get();
  REQUIRE_OK(r);
  CHECK(r->code == ResponseCode::PULL_NOT_FOUND);
}

TEST_CASE("broker long poll: a closed connection's parked pulls end at once; another connection's pull stays parked") {
  // A hold far longer than this test waits: the parked count can drop only because of the close.
  DevNode node({.extraBroker = "brokerSuspendMaxTimeMillis = 600000", .http = true});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  sendDispatched(c, addr, {{.topic = "CloseT", .queueId = 0}});
  const PullSpec stays{.topic = "CloseT", .queueId = 0, .offset = 1, .sysFlag = 0x4 | 0x2, .suspendMillis = 600000};
  auto parked = std::async(std::launch::async, [&] { return c.call(addr, pullRequest(stays), 30s); });
  REQUIRE(parkedNow(node, 1));
  {
    RawConn gone(node.brokerPort);  // two pipelined parked pulls, then the client is gone
    REQUIRE(gone.connected());
    for (int32_t q : {0, 1}) {
      PullSpec s = stays;
      s.queueId = q;
      s.offset = q == 0 ? 1 : 0;
      REQUIRE(gone.send(net::encodeFrame(pullRequest(s))));
    }
    REQUIRE(parkedNow(node, 3));
  }
  CHECK(parkedNow(node, 1));  // within 10 s; the hold would have kept them 600 s
  CHECK(parked.wait_for(0ms) == std::future_status::timeout);
  REQUIRE(c.call(addr, sendRequest({.topic = "CloseT", .body = "after", .queueId = 0})).ok());
  REQUIRE(parked.wait_for(10s) == std::future_status::ready);
  auto r = parked.get();
  REQUIRE(r.ok());
  CHECK(r->code == ResponseCode::SUCCESS);
  CHECK(pulledMessages(*r).at(0).body == "after");
  CHECK(parkedNow(node, 0));
}
