// Named fault points (common/fault_point.h) in a real rmqnode, armed through RMQNODE_FAULTS with
// flag files the test creates and removes while the broker runs: the answers a client sees
// (RocketMQ's codes, never SEND_OK for what is not durable), recovery once disarmed, and that
// every acknowledged message is pulled back — also after a kill -9 and restart.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <thread>

#include "broker_calls.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "node_process.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::test;
namespace fs = std::filesystem;

namespace {

// SEND_OK answers: queue offset -> key.
using Acked = std::map<int64_t, std::string>;

// One send to topic/0; the answer's code (SEND_OK recorded in `acked`).
int sendKey(TestClient& c, const std::string& addr, const std::string& topic, int i, Acked& acked,
            std::string* remark = nullptr) {
  std::string key = "k" + std::to_string(i);
  auto r = c.call(addr, sendRequest({.topic = topic, .body = "body-" + std::to_string(i), .keys = key}));
  REQUIRE_OK(r);
  if (r->code == ResponseCode::SUCCESS) acked[extInt(*r, "queueOffset")] = key;
  if (remark) *remark = r->remark.value_or("");
  return r->code;
}

// Everything in topic/0 from offset 0: queue offset -> key (in offset order, no gaps allowed).
std::map<int64_t, std::string> pullAll(TestClient& c, const std::string& addr, const std::string& topic) {
  std::map<int64_t, std::string> got;
  int64_t off = 0;
  for (int loops = 0; loops < 10000; ++loops) {
    auto msgs = pullMessages(c, addr, {.topic = topic, .offset = off});
    if (msgs.empty()) break;
    for (auto& m : msgs) {
      CHECK(m.queueOffset == off);  // consecutive queue offsets
      got[m.queueOffset] = m.keys();
      off = m.queueOffset + 1;
    }
  }
  return got;
}

void checkAllAckedBack(TestClient& c, const std::string& addr, const std::string& topic, const Acked& acked) {
  // SEND_OK comes before the consume queue has the message (dispatch runs behind, as Java's reput
  // service): wait until it holds the last acked offset, then read.
  if (!acked.empty())
    CHECK_MESSAGE(dispatched(c, addr, topic, 0, acked.rbegin()->first + 1),
                  "consume queue max " << maxOffset(c, addr, topic, 0) << ", last acked " << acked.rbegin()->first);
  auto got = pullAll(c, addr, topic);
  int missing = 0;
  for (auto& [off, key] : acked) {
    auto it = got.find(off);
    if (it == got.end() || it->second != key) {
      if (++missing <= 5) FAIL_CHECK("acked " << key << " at queue offset " << off << " not pulled back");
    }
  }
  CHECK(missing == 0);
}

}  // namespace

TEST_CASE("fault flush_eio (real broker, SYNC_FLUSH): sends answer FLUSH_DISK_TIMEOUT while the disk fails, "
          "SEND_OK again once it works, nothing acknowledged lost across kill -9") {
  DevNode node({.extraStore = "flushDiskType = \"SYNC_FLUSH\"\nsyncFlushTimeout = 60000\n"});
  std::string eio = node.proc.path("eio.flag");
  node.proc.setEnv("RMQNODE_FAULTS", "flush_eio@" + eio);
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  Acked acked;
  int i = 0;
  for (; i < 10; ++i) REQUIRE(sendKey(c, addr, "EioT", i, acked) == ResponseCode::SUCCESS);

  node.proc.writeFile("eio.flag", "");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the flag is rechecked every 20 ms
  int failed = 0;
  for (int n = 0; n < 10; ++n, ++i) {
    std::string remark;
    int code = sendKey(c, addr, "EioT", i, acked, &remark);
    // Answered at once (syncFlushTimeout is a minute), with Java's code for a send not flushed.
    CHECK_MESSAGE(code == ResponseCode::FLUSH_DISK_TIMEOUT, "code " << code << ": " << remark);
    failed += code == ResponseCode::FLUSH_DISK_TIMEOUT;
  }
  CHECK(failed == 10);
  CHECK(node.brokerLog().find("msync of the commit log failed: EIO") != std::string::npos);

  fs::remove(eio);
  REQUIRE(eventually([&] { return sendKey(c, addr, "EioT", i++, acked) == ResponseCode::SUCCESS; },
                     std::chrono::seconds(10)));
  for (int n = 0; n < 10; ++n, ++i) REQUIRE(sendKey(c, addr, "EioT", i, acked) == ResponseCode::SUCCESS);
  CHECK(eventually([&] { return node.brokerLog().find("commit log flush succeeds again") != std::string::npos; },
                   std::chrono::seconds(5)));
  checkAllAckedBack(c, addr, "EioT", acked);

  // SEND_OK meant durable: a kill -9 now loses none of them.
  node.proc.kill();
  REQUIRE(node.restart());
  REQUIRE(dispatched(c, addr, "EioT", 0, static_cast<int64_t>(i)));
  checkAllAckedBack(c, addr, "EioT", acked);
  CHECK(node.proc.stop() == 0);
}

TEST_CASE("fault dispatch_stall and commitlog_append (real broker): late but complete delivery; "
          "a failing append answers SYSTEM_ERROR and stores nothing") {
  DevNode node;
  std::string stall = node.proc.path("stall.flag");
  std::string append = node.proc.path("append.flag");
  node.proc.setEnv("RMQNODE_FAULTS", "dispatch_stall@" + stall + ",commitlog_append@" + append);
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  Acked acked;
  int i = 0;
  for (; i < 5; ++i) REQUIRE(sendKey(c, addr, "StallT", i, acked) == ResponseCode::SUCCESS);
  REQUIRE(dispatched(c, addr, "StallT", 0, 5));

  node.proc.writeFile("stall.flag", "");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (; i < 25; ++i) REQUIRE(sendKey(c, addr, "StallT", i, acked) == ResponseCode::SUCCESS);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(maxOffset(c, addr, "StallT", 0) == 5);  // acknowledged, not yet visible to consumers
  CHECK(pullMessages(c, addr, {.topic = "StallT", .offset = 5}).empty());
  fs::remove(stall);
  REQUIRE(dispatched(c, addr, "StallT", 0, 25));
  checkAllAckedBack(c, addr, "StallT", acked);

  node.proc.writeFile("append.flag", "");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::string remark;
  CHECK(sendKey(c, addr, "StallT", i++, acked, &remark) == ResponseCode::SYSTEM_ERROR);
  CHECK(remark.find("UNKNOWN_ERROR") != std::string::npos);
  fs::remove(append);
  REQUIRE(eventually([&] { return sendKey(c, addr, "StallT", i++, acked) == ResponseCode::SUCCESS; },
                     std::chrono::seconds(10)));
  CHECK(dispatched(c, addr, "StallT", 0, 26));  // the refused send left no trace
  checkAllAckedBack(c, addr, "StallT", acked);
  CHECK(node.proc.stop() == 0);
}
