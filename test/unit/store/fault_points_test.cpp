// The store's named fault points (common/fault_point.h), armed in-process: each fails or stalls
// what it names; the store answers a clear status (never PUT_OK for what is not durable), loses
// nothing it acknowledged, and works again once the point is disarmed. ENOSPC as a whole is
// covered by disk_full_test.cpp; here its two halves (create / write) one at a time.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "common/fault_point.h"
#include "common/file_write.h"
#include "common/response_code.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;
using rmq::fault::Point;

namespace {

bool waitFor(const std::function<bool()>& cond, std::chrono::milliseconds limit = std::chrono::seconds(30)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

// Waits (bounded) for the durability answer of `end`; UNKNOWN_ERROR if none came.
PutStatus durable(MessageStore& s, int64_t end) {
  auto got = std::make_shared<std::atomic<int>>(-1);
  s.asyncWaitDurable(end, [got](PutStatus st) { got->store(static_cast<int>(st)); });
  if (!waitFor([&] { return got->load() >= 0; })) return PutStatus::UNKNOWN_ERROR;
  return static_cast<PutStatus>(got->load());
}

AppendResult appendKey(MessageStore& s, const std::string& topic, int i) {
  TestMessage t(topic, 0, bodyOf(i, 300), "T", "k" + std::to_string(i));
  return s.append(t.m);
}

// Queue topic/0 holds exactly keys k0..k<n-1> at queue offsets 0..n-1, in order.
void checkQueue(MessageStore& s, const std::string& topic, int n) {
  REQUIRE(waitFor([&] { return s.dispatchedPhyOffset() >= s.maxPhyOffset(); }));
  REQUIRE(s.maxOffsetInQueue(topic, 0) == n);
  int next = 0;
  int64_t off = 0;
  for (int loops = 0; loops < 10000 && off < n; ++loops) {
    auto g = s.getMessages(topic, 0, off, 32, 1 << 30, nullptr);
    REQUIRE((g.status == GetStatus::FOUND));
    for (auto& rec : g.records) {
      auto m = decodeMessage(rec);
      REQUIRE(m.ok());
      CHECK(m->keys() == "k" + std::to_string(next));
      CHECK(m->queueOffset == next);
      ++next;
    }
    off = g.nextBeginOffset;
  }
  CHECK(next == n);
}

StoreConfig syncFlushConfig(const std::string& dir) {
  auto cfg = smallConfig(dir);
  cfg.flushDiskType = "SYNC_FLUSH";
  cfg.syncFlushTimeout = 60000;  // a FLUSH_DISK_TIMEOUT below comes from the failed flush, not the clock
  return cfg;
}

}  // namespace

TEST_CASE("fault flush_eio: waiting SYNC_FLUSH appends get FLUSH_DISK_TIMEOUT at once, never PUT_OK; "
          "disarmed, the next flush makes everything durable and nothing is lost") {
  TempDir dir;
  auto cfg = syncFlushConfig(dir.path);
  {
    MessageStore s(cfg, testStoreHost());
    REQUIRE(s.open().ok());
    s.start();
    for (int i = 0; i < 5; ++i) {
      auto r = appendKey(s, "EIO", i);
      REQUIRE(r.ok());
      REQUIRE((durable(s, r.endOffset()) == PutStatus::PUT_OK));
    }
    int64_t flushedBefore = s.flushedPhyOffset();
    {
      fault::ScopedArm eio(Point::FlushEio);
      for (int i = 5; i < 15; ++i) {
        auto r = appendKey(s, "EIO", i);
        REQUIRE(r.ok());  // written; only its durability fails
        PutStatus st = durable(s, r.endOffset());
        CHECK_MESSAGE((st == PutStatus::FLUSH_DISK_TIMEOUT), toString(st));
      }
      CHECK(s.flushedPhyOffset() == flushedBefore);
      CHECK(toResponseCode(PutStatus::FLUSH_DISK_TIMEOUT) == ResponseCode::FLUSH_DISK_TIMEOUT);
    }
    // Disarmed: the next flush covers the bytes written meanwhile too.
    auto r = appendKey(s, "EIO", 15);
    REQUIRE(r.ok());
    CHECK((durable(s, r.endOffset()) == PutStatus::PUT_OK));
    CHECK(s.flushedPhyOffset() == s.maxPhyOffset());
    checkQueue(s, "EIO", 16);
    s.shutdown();
  }
  MessageStore again(cfg, testStoreHost());
  REQUIRE(again.open().ok());
  checkQueue(again, "EIO", 16);
  again.shutdown();
}

TEST_CASE("fault slow_disk: SYNC_FLUSH appends wait for the slow flush and then succeed") {
  TempDir dir;
  MessageStore s(syncFlushConfig(dir.path), testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  {
    fault::ScopedArm slow(Point::SlowDisk, 300);
    for (int i = 0; i < 3; ++i) {
      auto r = appendKey(s, "SLOW", i);
      REQUIRE(r.ok());
      auto t0 = std::chrono::steady_clock::now();
      CHECK((durable(s, r.endOffset()) == PutStatus::PUT_OK));
      // A lower bound only: the flush really waited for the "disk".
      CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(250));
    }
  }
  checkQueue(s, "SLOW", 3);
  s.shutdown();
}

TEST_CASE("fault commitlog_append: UNKNOWN_ERROR (SYSTEM_ERROR) and nothing written; disarmed, appends resume") {
  TempDir dir;
  MessageStore s(smallConfig(dir.path), testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  REQUIRE(appendKey(s, "APP", 0).ok());
  int64_t end = s.maxPhyOffset();
  {
    fault::ScopedArm fail(Point::CommitLogAppend);
    auto r = appendKey(s, "APP", 1);
    REQUIRE_FALSE(r.ok());
    CHECK((r.status == PutStatus::UNKNOWN_ERROR));
    CHECK(toResponseCode(r.status) == ResponseCode::SYSTEM_ERROR);
    CHECK(s.remarkFor(r.status, r.error).find("UNKNOWN_ERROR: commit log append failed") == 0);
    CHECK(s.maxPhyOffset() == end);
  }
  REQUIRE(appendKey(s, "APP", 1).ok());
  checkQueue(s, "APP", 2);
  s.shutdown();
}

TEST_CASE("fault dispatch_stall: appends go on, consumers see nothing new; disarmed, all arrive in order") {
  TempDir dir;
  MessageStore s(smallConfig(dir.path), testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  for (int i = 0; i < 5; ++i) REQUIRE(appendKey(s, "STALL", i).ok());
  REQUIRE(waitFor([&] { return s.maxOffsetInQueue("STALL", 0) == 5; }));
  {
    fault::ScopedArm stall(Point::DispatchStall);
    std::this_thread::sleep_for(fault::kFlagRecheck * 3);  // the dispatcher is parked
    for (int i = 5; i < 40; ++i) REQUIRE(appendKey(s, "STALL", i).ok());  // several commit log files
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(s.maxOffsetInQueue("STALL", 0) == 5);
    CHECK(s.dispatchedPhyOffset() < s.maxPhyOffset());
    auto g = s.getMessages("STALL", 0, 5, 32, 1 << 30, nullptr);
    CHECK((g.status != GetStatus::FOUND));
  }
  checkQueue(s, "STALL", 40);
  s.shutdown();
}

TEST_CASE("fault enospc_create alone: a new commit log file cannot be created (CREATE_MAPEDFILE_FAILED, "
          "then SERVICE_NOT_AVAILABLE); disarmed, writes resume and nothing acknowledged is lost") {
  TempDir dir;
  MessageStore s(smallConfig(dir.path), testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  int acked = 0;
  for (; acked < 5; ++acked) REQUIRE(appendKey(s, "NOSPC", acked).ok());
  // Dispatched first: the consume queue and index files of these five exist before the fault,
  // so what the fault refuses below is the write it names, not a late file creation.
  REQUIRE(waitFor([&] { return s.maxOffsetInQueue("NOSPC", 0) == 5; }));
  std::vector<PutStatus> refused;
  {
    fault::ScopedArm create(Point::EnospcCreate);
    for (int i = 0; i < 2000 && refused.size() < 5; ++i) {
      auto r = appendKey(s, "NOSPC", acked);
      if (r.ok()) ++acked;
      else refused.push_back(r.status);
    }
    REQUIRE(refused.size() == 5);
    for (auto st : refused)
      CHECK_MESSAGE((st == PutStatus::CREATE_MAPPED_FILE_FAILED || st == PutStatus::SERVICE_NOT_AVAILABLE), toString(st));
  }
  REQUIRE(waitFor([&] {
    auto r = appendKey(s, "NOSPC", acked);
    if (r.ok()) ++acked;
    return r.ok();
  }));
  checkQueue(s, "NOSPC", acked);
  s.shutdown();
}

TEST_CASE("fault enospc_write alone: block reservation and small-file writes fail; existing blocks stay usable") {
  TempDir dir;
  std::string path = dir.path + "/topics.json";
  REQUIRE(replaceFileAtomically(path, "{}").ok());
  {
    fault::ScopedArm write(Point::EnospcWrite);
    auto r = replaceFileAtomically(path, "{\"a\":1}");
    REQUIRE_FALSE(r.ok());
    CHECK(isNoSpace(r.error()));
  }
  REQUIRE(replaceFileAtomically(path, "{\"a\":1}").ok());

  MessageStore s(smallConfig(dir.path), testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  int acked = 0;
  for (; acked < 5; ++acked) REQUIRE(appendKey(s, "NOSPCW", acked).ok());
  // Dispatched first: the consume queue and index files of these five exist before the fault,
  // so what the fault refuses below is the write it names, not a late file creation.
  REQUIRE(waitFor([&] { return s.maxOffsetInQueue("NOSPCW", 0) == 5; }));
  int refused = 0;
  {
    fault::ScopedArm write(Point::EnospcWrite);
    for (int i = 0; i < 2000 && refused < 5; ++i) {
      auto r = appendKey(s, "NOSPCW", acked);
      if (r.ok()) ++acked;
      else ++refused;
    }
    CHECK(refused == 5);
    CHECK(acked > 5);  // the reserved blocks of the current files were used first
  }
  REQUIRE(waitFor([&] {
    auto r = appendKey(s, "NOSPCW", acked);
    if (r.ok()) ++acked;
    return r.ok();
  }));
  checkQueue(s, "NOSPCW", acked);
  s.shutdown();
}
