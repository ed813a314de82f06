// Issue 10: hostile and broken peers cost only their own connections. A real rmqnode (name server
// + broker) takes a flood of oversized, negative, inconsistent and garbage frames and unfinished
// (slowloris) frames on many connections while a healthy client keeps sending: every bad
// connection is closed with a log line naming the reason, every healthy send succeeds.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "broker_calls.h"
#include "common/bytes.h"
#include "dev_node.h"
#include "raw_conn.h"

using namespace rmq;
using namespace rmq::test;

namespace {

// total-length word, header-length word (serialize type in the top byte), then `rest`.
std::string frame(uint32_t total, uint32_t headerWord, const std::string& rest) {
  std::string out;
  putBE32(out, total);
  putBE32(out, headerWord);
  return out + rest;
}

struct BadFrame {
  const char* what;
  std::string bytes;
  const char* logged;  // the reason in the broker's warning
};

std::vector<BadFrame> badFrames() {
  std::string json = R"({"code":310,"opaque":1)";  // cut JSON
  std::string ok = R"({"code":310,"opaque":1,"flag":0,"language":"JAVA","version":401})";
  return {
      {"length above maxFrameSize", frame(64u << 20, 10, ""), "bad frame length 67108864"},
      {"negative length", frame(0xFFFFFFF0u, 10, ""), "bad frame length -16"},
      {"length below the header word", std::string("\0\0\0\2\0\0", 6), "bad frame length 2"},
      {"header length beyond the frame", frame(4 + 8, 1000, "12345678"), "malformed frame"},
      {"garbage JSON header", frame(4 + uint32_t(json.size()), uint32_t(json.size()), json), "malformed frame"},
      {"unknown serialize type", frame(4 + uint32_t(ok.size()), (7u << 24) | uint32_t(ok.size()), ok), "malformed frame"},
      {"HTTP request", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "bad frame length"},
  };
}

}  // namespace

TEST_CASE("broker: a flood of bad and unfinished frames closes only those connections") {
  DevNode node({.extraBroker = "partialFrameTimeoutSeconds = 1\n"});
  REQUIRE(node.start());
  const std::string topic = uniqueName("Hostile");
  {
    TestClient setup;
    createTopic(setup, node.brokerAddr, topic, 4);
  }

  std::atomic<bool> stop{false};
  std::atomic<int> sent{0}, failed{0};
  std::thread healthy([&] {
    TestClient c;
    for (int i = 0; !stop.load(); ++i) {
      auto r = c.call(node.brokerAddr, sendRequest({.topic = topic, .body = "ok-" + std::to_string(i), .queueId = i % 4}));
      (r.ok() && r.value().code == 0 ? sent : failed)++;
    }
  });

  // Unfinished frames first (their deadline runs while the flood goes on): a length prefix and
  // part of the frame, or part of the length prefix alone.
  std::vector<std::unique_ptr<RawConn>> slow;
  for (int i = 0; i < 20; ++i) {
    slow.push_back(std::make_unique<RawConn>(node.brokerPort));
    REQUIRE(slow.back()->connected());
    REQUIRE(slow.back()->send(i % 2 ? frame(200, 60, "{\"code\":") : std::string("\0\0", 2)));
  }
  int closedBad = 0, total = 0;
  for (int round = 0; round < 10; ++round)
    for (auto& bad : badFrames()) {
      ++total;
      bool closed = serverClosesAfter(node.brokerPort, bad.bytes);
      if (!closed) MESSAGE("not closed: " << bad.what);
      closedBad += closed;
    }
  CHECK(closedBad == total);
  int closedSlow = 0;
  for (auto& c : slow) closedSlow += c->closedWithin(std::chrono::seconds(10));
  CHECK(closedSlow == 20);

  stop = true;
  healthy.join();
  CHECK(failed.load() == 0);
  CHECK(sent.load() > 0);
  MESSAGE("healthy sends during the flood: " << sent.load());

  // The broker says why it closed each one, and still serves new clients.
  std::string log = node.brokerLog();
  for (auto& bad : badFrames()) CHECK_MESSAGE(log.find(bad.logged) != std::string::npos, bad.what);
  CHECK(log.find("incomplete frame: 2 of ? bytes after 1s") != std::string::npos);
  CHECK(log.find("incomplete frame: 16 of 204 bytes after 1s") != std::string::npos);
  TestClient fresh;
  sendOk(fresh, node.brokerAddr, {.topic = topic, .body = "after"});
  CHECK(node.proc.stop() == 0);
}
