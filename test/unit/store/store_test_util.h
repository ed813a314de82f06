#pragma once
// Shared helpers of the store unit tests: temp dirs, tiny-file configs, message builders.
#include <doctest/doctest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>

#include "common/message_codec.h"
#include "store/message_store.h"

namespace rmq::store::test {

struct TempDir {
  std::string path;
  TempDir() {
    std::random_device rd;
    path = "/tmp/rmq-store-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd());
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

inline StoreConfig smallConfig(const std::string& root) {
  StoreConfig c;
  c.storePathRootDir = root;
  c.mappedFileSizeCommitLog = 64 * 1024;
  c.mappedFileSizeConsumeQueue = 20 * 10;  // 10 units per file
  c.maxHashSlotNum = 64;
  c.maxIndexNum = 100;
  c.messageDelayLevel = "1s 2s 3s";
  c.flushIntervalConsumeQueue = 50;
  c.cleanResourceInterval = 50;
  c.deleteWhen = "99";  // never by clock
  return c;
}

inline HostAddress testStoreHost() {
  HostAddress h;
  HostAddress::parse("127.0.0.1:10911", h);
  return h;
}

// Owns the strings a MessageToStore points at.
struct TestMessage {
  std::string topic, body, props;
  MessageToStore m;
  TestMessage(std::string t, int qid, std::string b, std::string tags = "", std::string keys = "",
              Properties extra = {}) : topic(std::move(t)), body(std::move(b)) {
    Properties p = std::move(extra);
    if (!tags.empty()) p.emplace_back("TAGS", tags);
    if (!keys.empty()) p.emplace_back("KEYS", keys);
    props = encodeProperties(p);
    m.topic = topic;
    m.queueId = qid;
    m.body = body;
    m.properties = props;
    m.bornTimestamp = 1700000000000;
    HostAddress::parse("10.0.0.9:4242", m.bornHost);
  }
};

inline std::string bodyOf(int i, size_t size = 200) {
  std::string b = "msg-" + std::to_string(i) + "-";
  while (b.size() < size) b.push_back(static_cast<char>('a' + (b.size() + i) % 26));
  return b;
}

// Waits (bounded) until the dispatcher has built consume queues up to the commit log end.
inline void waitDispatched(MessageStore& s) {
  for (int i = 0; i < 5000 && s.dispatchedPhyOffset() < s.maxPhyOffset(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(s.dispatchedPhyOffset() == s.maxPhyOffset());
}

// Path of the commit log file that starts at `offset`.
inline std::string commitLogFile(const std::string& root, int64_t offset) {
  char name[32];
  std::snprintf(name, sizeof name, "%020lld", static_cast<long long>(offset));
  return root + "/commitlog/" + name;
}

}  // namespace rmq::store::test
