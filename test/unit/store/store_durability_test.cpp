// Group commit, checkpoint/abort/lock, recovery after crashes and corruption, retention, disk full.
#include <doctest/doctest.h>

#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <asio/bind_executor.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "common/bytes.h"
#include "store/mapped_file_queue.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;
namespace fs = std::filesystem;

namespace {
// Appends n messages to Q/0..3; returns results.
std::vector<AppendResult> fill(MessageStore& s, int n, const std::string& topic = "Q") {
  std::vector<AppendResult> out;
  for (int i = 0; i < n; ++i) {
    TestMessage t(topic, i % 4, bodyOf(i, 150 + i % 200), "T" + std::to_string(i % 5), "key" + std::to_string(i));
    out.push_back(s.append(t.m));
    REQUIRE(out.back().ok());
  }
  waitDispatched(s);
  return out;
}

// A store under cfg that took n messages (fill) and was shut down cleanly; the append results.
std::vector<AppendResult> filledStore(const StoreConfig& cfg, int n) {
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  auto rs = fill(s, n);
  s.shutdown();
  return rs;
}

// Every message of topic Q is readable through its queue and matches the append results.
int countReadable(MessageStore& s, const std::vector<AppendResult>& rs, const std::string& topic = "Q") {
  int n = 0;
  for (int q = 0; q < 4; ++q) {
    int64_t off = s.minOffsetInQueue(topic, q);
    for (int loops = 0; loops < 1000 && off < s.maxOffsetInQueue(topic, q); ++loops) {
      auto g = s.getMessages(topic, q, off, 32, 1 << 30, nullptr);
      if (g.status != GetStatus::FOUND) break;
      for (auto& rec : g.records) {
        auto m = decodeMessage(rec);
        REQUIRE(m.ok());
        int i = std::stoi(m->keys().substr(3));
        REQUIRE(i < static_cast<int>(rs.size()));
        CHECK(m->commitLogOffset == rs[i].physicalOffset);
        CHECK(m->bodyCRC == crc32Masked(m->body));
        ++n;
      }
      off = g.nextBeginOffset;
    }
  }
  return n;
}

void flipByte(const std::string& path, int64_t pos) {
  int fd = ::open(path.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  char c;
  REQUIRE(::pread(fd, &c, 1, pos) == 1);
  c ^= 0x5A;
  REQUIRE(::pwrite(fd, &c, 1, pos) == 1);
  ::close(fd);
}

void zeroFrom(const std::string& path, int64_t pos, int64_t size) {
  int fd = ::open(path.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  std::string zeros(static_cast<size_t>(size - pos), '\0');
  REQUIRE(::pwrite(fd, zeros.data(), zeros.size(), pos) == static_cast<ssize_t>(zeros.size()));
  ::close(fd);
}
}  // namespace

TEST_CASE("SYNC_FLUSH group commit completes every waiter; ASYNC completes at once") {
  for (bool sync : {true, false}) {
    TempDir dir;
    auto cfg = smallConfig(dir.path);
    cfg.flushDiskType = sync ? "SYNC_FLUSH" : "ASYNC_FLUSH";
    MessageStore store(cfg, testStoreHost());
    REQUIRE(store.open().ok());
    store.start();
    asio::io_context io;
    int ok = 0, done = 0;
    for (int c = 0; c < 64; ++c) {
      asio::co_spawn(io, [&, c]() -> asio::awaitable<void> {
        TestMessage t("G", c % 4, bodyOf(c, 300));
        auto r = store.append(t.m);
        auto st = co_await store.asyncWaitDurable(r.endOffset(), asio::use_awaitable);
        if (st == PutStatus::PUT_OK && (!sync || store.flushedPhyOffset() >= r.endOffset())) ++ok;
        ++done;
      }, asio::detached);
    }
    io.run_for(std::chrono::seconds(10));
    CHECK(done == 64);
    CHECK(ok == 64);
    // Callback token and the slave-ack seam.
    bool called = false;
    PutStatus seen = PutStatus::UNKNOWN_ERROR;
    io.restart();
    store.asyncWaitReplicated(store.maxPhyOffset(),
                              asio::bind_executor(io, [&](PutStatus st) { called = true; seen = st; }));
    io.run_for(std::chrono::seconds(2));
    CHECK(called);
    CHECK((seen == PutStatus::SLAVE_NOT_AVAILABLE));
    store.setSlaveAvailable(true);
    called = false;
    io.restart();
    store.asyncWaitReplicated(store.maxPhyOffset(),
                              asio::bind_executor(io, [&](PutStatus st) { called = true; seen = st; }));
    store.notifySlaveAck(store.maxPhyOffset());
    io.run_for(std::chrono::seconds(2));
    CHECK(called);
    CHECK((seen == PutStatus::PUT_OK));
    store.shutdown();
  }
}

TEST_CASE("SYNC_FLUSH: bytes no send waits for (WAIT=false) are flushed within ~10 ms all the same, as Java's group commit") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.flushDiskType = "SYNC_FLUSH";
  cfg.flushIntervalCommitLog = 600000;  // not the ASYNC interval: no other flush while the test runs
  MessageStore store(cfg, testStoreHost());
  REQUIRE(store.open().ok());
  store.start();
  for (int i = 0; i < 20; ++i) {
    TestMessage t("NoWait", 0, bodyOf(i, 300));
    REQUIRE(store.append(t.m).ok());  // nobody calls asyncWaitDurable
  }
  const int64_t end = store.maxPhyOffset();
  REQUIRE(end > 0);
  // Before the idle flush these bytes stayed unflushed until shutdown (and a SYNC_FLUSH slave's
  // replicated bytes, which have no waiters either, likewise).
  bool flushed = false;
  for (int i = 0; i < 2000 && !flushed; ++i) {
    flushed = store.flushedPhyOffset() >= end;
    if (!flushed) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(flushed);
  store.shutdown();
}

TEST_CASE("SYNC_FLUSH with overlapping flushes: every ack is durable, across commit log files") {
  // Four sender threads in closed loops keep both flushers busy, so flushes overlap and end in
  // any order; an ack must still never come before its bytes are below the durable end, also
  // when a flush crosses from one 64 KiB file into the next.
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.flushDiskType = "SYNC_FLUSH";
  MessageStore store(cfg, testStoreHost());
  REQUIRE(store.open().ok());
  store.start();
  constexpr int kThreads = 4, kSends = 150;
  std::atomic<int> ok{0}, early{0};
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t) {
    senders.emplace_back([&, t] {
      asio::io_context io;
      asio::co_spawn(io, [&, t]() -> asio::awaitable<void> {
        for (int i = 0; i < kSends; ++i) {
          TestMessage m("G", t, bodyOf(t * kSends + i, 700));
          auto r = store.append(m.m);
          if (!r.ok()) co_return;
          auto st = co_await store.asyncWaitDurable(r.endOffset(), asio::use_awaitable);
          if (st != PutStatus::PUT_OK) co_return;
          if (store.flushedPhyOffset() < r.endOffset()) ++early;
          ++ok;
        }
      }, asio::detached);
      io.run_for(std::chrono::seconds(30));
    });
  }
  for (auto& s : senders) s.join();
  CHECK(early.load() == 0);
  CHECK(ok.load() == kThreads * kSends);
  auto gc = store.groupCommitStats();
  // Every send is in a flush's batch or was answered at once, its bytes already flushed.
  MESSAGE("in batches ", gc.waiters, ", already flushed ", gc.alreadyFlushed);
  CHECK(gc.waiters + gc.alreadyFlushed == uint64_t(kThreads * kSends));
  CHECK(gc.flushes <= gc.waiters);
  CHECK(store.maxPhyOffset() > 4 * cfg.mappedFileSizeCommitLog);  // several files were crossed
  store.shutdown();
}

TEST_CASE("lock file stops a second open; clean shutdown writes checkpoint and removes abort") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  std::vector<AppendResult> rs;
  {
    MessageStore a(cfg, testStoreHost());
    REQUIRE(a.open().ok());
    a.start();
    CHECK(fs::exists(dir.path + "/abort"));
    MessageStore b(cfg, testStoreHost());
    auto r = b.open();
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("locked") != std::string::npos);
    rs = fill(a, 50);
    a.shutdown();
    CHECK_FALSE(fs::exists(dir.path + "/abort"));
  }
  std::ifstream cp(dir.path + "/checkpoint", std::ios::binary);
  char buf[24];
  cp.read(buf, 24);
  REQUIRE(cp.gcount() == 24);
  CHECK(static_cast<int64_t>(loadBE64(buf)) == rs.back().storeTimestamp);      // physic
  CHECK(static_cast<int64_t>(loadBE64(buf + 8)) == rs.back().storeTimestamp);  // logics
  CHECK(fs::file_size(dir.path + "/checkpoint") == 4096);
  MessageStore c(cfg, testStoreHost());
  REQUIRE(c.open().ok());
  c.start();
  CHECK(countReadable(c, rs) == 50);
  CHECK(c.maxPhyOffset() == rs.back().endOffset());
  auto more = c.append(TestMessage("Q", 1, "after", "", "key50").m);
  CHECK(more.queueOffset == 13);  // queue 1 had 0..12
  c.shutdown();
}

TEST_CASE("a kill -9 while a commit log, consume queue or index file was being created (length 0) does not stop the next start") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  auto rs = filledStore(cfg, 30);
  std::ofstream(dir.path + "/abort").flush();
  // The next files, created but never sized: what open() leaves when the process dies before fallocate.
  std::string nextLog = commitLogFile(dir.path, (rs.back().endOffset() / 65536 + 1) * 65536);
  std::ofstream(nextLog).flush();
  std::string nextQueue = dir.path + "/consumequeue/Q/0/" + fmt::format("{:020d}", 10 * 20);  // after 10 units
  std::ofstream(nextQueue).flush();
  std::string nextIndex = dir.path + "/index/99991231235959999";  // index files are named by creation time
  std::ofstream(nextIndex).flush();
  MessageStore s(cfg, testStoreHost());
  auto opened = s.open();
  REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? std::string() : opened.error().message));
  s.start();
  CHECK(countReadable(s, rs) == 30);
  CHECK(!fs::exists(nextLog));
  CHECK(!fs::exists(nextQueue));
  CHECK(!fs::exists(nextIndex));
  CHECK(s.queryMessage("Q", "key7", 32, 0, INT64_MAX).records.size() == 1);
  CHECK(s.append(TestMessage("Q", 0, "after", "", "k").m).ok());
  s.shutdown();
}

TEST_CASE("abnormal recovery: torn tail, CRC flip, missing checkpoint — every complete record back") {
  struct Damage {
    const char* name;
    int kind;
  };
  for (Damage d : {Damage{"truncate mid-record", 0}, Damage{"flip a body byte", 1}, Damage{"no checkpoint", 2},
                   Damage{"abort file only", 3}}) {
    CAPTURE(d.name);
    TempDir dir;
    auto cfg = smallConfig(dir.path);
    auto rs = filledStore(cfg, 700);  // several commit log files
    std::ofstream(dir.path + "/abort").flush();  // pretend we crashed
    int expected = 700;
    const AppendResult& victim = rs[650];
    std::string file = commitLogFile(dir.path, victim.physicalOffset / 65536 * 65536);
    int64_t pos = victim.physicalOffset % 65536;
    if (d.kind == 0) {
      zeroFrom(file, pos + victim.wroteBytes / 2, 65536);  // torn write: half a record, then zeros
      expected = 650;
    } else if (d.kind == 1) {
      flipByte(file, pos + victim.wroteBytes - 60);  // inside the body (topic+props are short)
      expected = 650;
    } else if (d.kind == 2) {
      fs::remove(dir.path + "/checkpoint");
    }
    // Extra CQ garbage for records that are gone must also be cut.
    MessageStore s(cfg, testStoreHost());
    REQUIRE(s.open().ok());
    s.start();
    CHECK(s.maxPhyOffset() == (expected == 700 ? rs.back().endOffset() : victim.physicalOffset));
    CHECK(countReadable(s, rs) == expected);
    int total = 0;
    for (int q = 0; q < 4; ++q) total += static_cast<int>(s.maxOffsetInQueue("Q", q));
    CHECK(total == expected);
    // Index: keys of surviving records found, lost ones not.
    CHECK(s.queryMessage("Q", "key10", 32, 0, INT64_MAX).records.size() == 1);
    CHECK(s.queryMessage("Q", "key" + std::to_string(expected - 1), 32, 0, INT64_MAX).records.size() == 1);
    if (expected < 700) CHECK(s.queryMessage("Q", "key690", 32, 0, INT64_MAX).records.empty());
    // Appends continue at the recovered end with the right queue offsets.
    TestMessage t("Q", victim.queueId, "new", "", "key-new");
    auto r = s.append(t.m);
    REQUIRE(r.ok());
    CHECK(r.physicalOffset == s.maxPhyOffset() - r.wroteBytes);
    CHECK(r.queueOffset == s.maxOffsetInQueue("Q", victim.queueId) - (s.dispatchedPhyOffset() == s.maxPhyOffset() ? 1 : 0));
    s.shutdown();
  }
}

TEST_CASE("retention deletes old commit log files, then CQ/index files; min offsets advance") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.fileReservedTime = 0;
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  auto rs = fill(s, 900);
  int64_t files = s.maxPhyOffset() / 65536 + 1;
  REQUIRE(files >= 4);
  s.runRetention(true);
  CHECK(s.minPhyOffset() > 0);
  CHECK(s.minPhyOffset() == (s.maxPhyOffset() / 65536) * 65536);  // only the last file left
  for (int q = 0; q < 4; ++q) {
    int64_t min = s.minOffsetInQueue("Q", q);
    CHECK(min > 0);
    auto g = s.getMessages("Q", q, 0, 32, 1 << 30, nullptr);
    CHECK((g.status == GetStatus::OFFSET_TOO_SMALL));
    CHECK(g.nextBeginOffset == min);
    auto ok = s.getMessages("Q", q, min, 32, 1 << 30, nullptr);
    REQUIRE((ok.status == GetStatus::FOUND));
    CHECK(decodeMessage(ok.records[0])->commitLogOffset >= s.minPhyOffset());
  }
  CHECK(s.lookMessageByOffset(rs[0].physicalOffset).bytes.empty());
  CHECK(s.lookMessageByOffset(rs[899].physicalOffset));
  // Consume-queue files wholly below the new min are gone.
  int cqFiles = 0;
  for (auto& e : fs::directory_iterator(dir.path + "/consumequeue/Q/0")) cqFiles += e.is_regular_file();
  CHECK(cqFiles < 225 / 10);
  s.shutdown();
  // The retained state survives a restart.
  MessageStore again(cfg, testStoreHost());
  REQUIRE(again.open().ok());
  CHECK(again.minOffsetInQueue("Q", 0) == s.minOffsetInQueue("Q", 0));
  again.shutdown();
}

TEST_CASE("retention deletes one file at a time, deleteCommitLogFilesInterval apart (Java's deleteExpiredFileByTime)") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.fileReservedTime = 0;
  cfg.cleanResourceInterval = 600000;  // only the test's runRetention deletes
  cfg.deleteCommitLogFilesInterval = 120;
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  fill(s, 700);
  int64_t files = s.maxPhyOffset() / 65536 + 1;
  REQUIRE(files >= 4);
  REQUIRE(files <= 11);  // one run deletes at most 10
  auto t0 = std::chrono::steady_clock::now();
  s.runRetention(true);
  auto took = std::chrono::steady_clock::now() - t0;
  CHECK(s.minPhyOffset() == (files - 1) * 65536);  // all but the last, in one run
  // files - 1 deletions with a pause between each two.
  CHECK(took >= std::chrono::milliseconds(120 * (files - 2)));
  s.shutdown();
}

TEST_CASE("cleanFileForciblyEnable=false: above diskSpaceCleanForciblyRatio unexpired files stay; true deletes them") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.fileReservedTime = 1000;  // nothing is old enough
  cfg.cleanResourceInterval = 600000;
  cfg.deleteCommitLogFilesInterval = 0;
  cfg.cleanFileForciblyEnable = false;
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  fill(s, 500);
  s.setDiskUsageProbe([] { return 0.87; });  // above 75 (max used) and 85 (forcibly), below 90 (full)
  s.runRetention(false);
  CHECK(s.minPhyOffset() == 0);
  auto on = cfg;
  on.cleanFileForciblyEnable = true;  // a live key (UPDATE_BROKER_CONFIG)
  s.applyRuntimeConfig(on);
  s.runRetention(false);
  CHECK(s.minPhyOffset() > 0);
  s.shutdown();
}

TEST_CASE("flushConsumeQueueLeastPages: a queue file is synced once that many pages are dirty, or when full") {
  TempDir dir;
  MappedFileQueue q(dir.path + "/cq", 4 * 4096);
  auto f = q.fileAt(0);
  REQUIRE(f);
  auto write = [&](int64_t end) {
    std::memset((*f)->data() + (*f)->wrote(), 'u', static_cast<size_t>(end - (*f)->wrote()));
    (*f)->setWrote(end);
  };
  write(4096 + 100);  // one page boundary crossed: 1 dirty page by Java's count
  CHECK(q.flush(2) == 0);
  CHECK(q.flushedOffset() == 0);
  write(2 * 4096 + 100);
  CHECK(q.flush(2) == 2 * 4096 + 100);
  write(2 * 4096 + 200);
  CHECK(q.flush(2) == 2 * 4096 + 100);  // below the least pages
  CHECK(q.flush(0) == 2 * 4096 + 200);  // a thorough flush takes everything
  write(4 * 4096);                      // full: synced whatever the count
  CHECK(q.flush(8) == 4 * 4096);
}

TEST_CASE("disk full: appends refused with SERVICE_NOT_AVAILABLE, resume once space frees") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.fileReservedTime = 1000;  // nothing is old enough: only the forced clean may delete
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  fill(s, 700);
  std::atomic<double> used{0.95};
  s.setDiskUsageProbe([&] { return used.load(); });
  TestMessage t("Q", 0, "x", "", "key-x");
  auto r = s.append(t.m);
  CHECK((r.status == PutStatus::SERVICE_NOT_AVAILABLE));
  CHECK(r.error.find("disk") != std::string::npos);
  CHECK_FALSE(s.isWriteable());
  // Above the forcible ratio the maintenance thread deletes files regardless of age.
  for (int i = 0; i < 200 && s.minPhyOffset() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(s.minPhyOffset() > 0);
  used = 0.5;  // space freed: writes resume by themselves
  bool resumed = false;
  for (int i = 0; i < 200 && !resumed; ++i) {
    resumed = s.append(t.m).ok();
    if (!resumed) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(resumed);
  s.shutdown();
}

TEST_CASE("index files roll over when full and queries span them") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.maxIndexNum = 40;  // 39 entries per file
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  auto rs = fill(s, 200);
  int indexFiles = 0;
  for (auto& e : fs::directory_iterator(dir.path + "/index")) indexFiles += e.is_regular_file();
  CHECK(indexFiles >= 5);
  for (int i = 0; i < 200; i += 13) {
    auto q = s.queryMessage("Q", "key" + std::to_string(i), 32, 0, INT64_MAX);
    REQUIRE(q.records.size() == 1);
    CHECK(decodeMessage(q.records[0])->commitLogOffset == rs[i].physicalOffset);
  }
  // Time range excludes everything.
  CHECK(s.queryMessage("Q", "key5", 32, 0, 1000).records.empty());
  s.shutdown();
}

TEST_CASE("abnormal recovery re-indexes what the discarded index files covered") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.maxIndexNum = 100000;  // one index file, never full: its time is never checkpointed
  cfg.maxHashSlotNum = 1000;
  std::vector<AppendResult> rs;
  {
    MessageStore s(cfg, testStoreHost());
    REQUIRE(s.open().ok());
    s.start();
    rs = fill(s, 600);
    s.shutdown();
  }
  // Checkpoint claims everything up to an hour from now is durable: recovery would start at the
  // last commit log file, while the index file (newer than indexMsgTimestamp 0) is discarded.
  {
    int fd = ::open((dir.path + "/checkpoint").c_str(), O_RDWR);
    REQUIRE(fd >= 0);
    char buf[16];
    int64_t later = rs.back().storeTimestamp + 3600 * 1000;
    storeBE64(buf, static_cast<uint64_t>(later));
    storeBE64(buf + 8, static_cast<uint64_t>(later));
    REQUIRE(::pwrite(fd, buf, 16, 0) == 16);
    ::close(fd);
  }
  std::ofstream(dir.path + "/abort").flush();
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  for (int i : {0, 1, 300, 599}) CHECK(s.queryMessage("Q", "key" + std::to_string(i), 32, 0, INT64_MAX).records.size() == 1);
  CHECK(countReadable(s, rs) == 600);
  s.shutdown();
}
