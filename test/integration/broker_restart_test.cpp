// Restarts: offsets and messages survive a clean stop; acknowledged SYNC_FLUSH sends survive kill -9.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "broker_calls.h"
#include "client/request_headers.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "namesrv_client.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

TEST_CASE("broker restart: committed offsets and messages survive a clean stop") {
  DevNode node;
  REQUIRE(node.start());
  auto addr = node.brokerAddr;
  {
    TestClient c;
    std::vector<SendSpec> sends;
    for (int i = 0; i < 10; ++i) sends.push_back({.topic = "RsT", .body = std::to_string(i)});
    sendDispatched(c, addr, sends);
    REQUIRE(c.call(addr, client::makeUpdateConsumerOffset("g", "RsT", 0, 7)).ok());
  }
  REQUIRE(node.proc.stop() == 0);
  CHECK(node.proc.readFile("store/config/consumerOffset.json").find("RsT@g") != std::string::npos);
  REQUIRE(node.restart());
  TestClient c;
  auto q = c.call(addr, client::makeQueryConsumerOffset("g", "RsT", 0));
  REQUIRE(q.ok());
  CHECK(q->code == ResponseCode::SUCCESS);
  CHECK(extInt(*q, "offset") == 7);
  auto p = c.call(addr, pullRequest({.topic = "RsT", .offset = 7}));
  REQUIRE(p.ok());
  REQUIRE(p->code == ResponseCode::SUCCESS);
  auto msgs = pulledMessages(*p);
  REQUIRE(msgs.size() == 3);
  CHECK(msgs[0].body == "7");
}

TEST_CASE("broker kill -9 under SYNC_FLUSH load: every acknowledged message is pulled back after restart") {
  DevNode node({.extraStore = "flushDiskType = \"SYNC_FLUSH\""});
  REQUIRE(node.start());
  auto addr = node.brokerAddr;
  std::mutex mu;
  std::set<std::string> acked;  // bodies acknowledged with SEND_OK
  std::atomic<bool> stop{false};
  std::vector<std::thread> producers;
  for (int t = 0; t < 4; ++t) {
    producers.emplace_back([&, t] {
      TestClient c;
      for (int i = 0; !stop && i < 100000; ++i) {
        std::string body = "p" + std::to_string(t) + "-" + std::to_string(i);
        auto r = c.call(addr, sendRequest({.topic = "CrashT", .body = body, .queueId = t}), 2s);
        if (!r.ok()) break;  // connection died with the broker
        if (r->code == ResponseCode::SUCCESS) {
          std::lock_guard lk(mu);
          acked.insert(body);
        }
      }
    });
  }
  REQUIRE(eventually([&] { std::lock_guard lk(mu); return acked.size() >= 300; }, 30s));
  node.proc.kill();
  stop = true;
  for (auto& t : producers) t.join();
  size_t ackedCount = acked.size();
  MESSAGE("acknowledged before kill -9: " << ackedCount);

  REQUIRE(node.restart());
  TestClient c;
  std::set<std::string> found;
  for (int q = 0; q < 4; ++q) {
    int64_t ackedInQueue = std::count_if(acked.begin(), acked.end(), [q](const std::string& b) {
      return b.rfind("p" + std::to_string(q) + "-", 0) == 0;
    });
    CHECK(dispatched(c, addr, "CrashT", q, ackedInQueue));
    int64_t offset = 0;
    for (int guard = 0; guard < 100000; ++guard) {
      auto r = c.call(addr, pullRequest({.topic = "CrashT", .queueId = q, .offset = offset}));
      REQUIRE_OK(r);
      if (r->code != ResponseCode::SUCCESS) break;
      for (auto& m : pulledMessages(*r)) found.insert(m.body);
      offset = extInt(*r, "nextBeginOffset");
    }
  }
  size_t missing = 0;
  for (auto& b : acked) missing += found.count(b) == 0;
  CHECK(missing == 0);
  CHECK(found.size() >= ackedCount);
}
