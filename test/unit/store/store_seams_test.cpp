// Seams used by other modules: replication byte copy (slave), topic deletion, config keys.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "store/append_thread.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;

TEST_CASE("slave: replicated commit log bytes are dispatched into identical queues") {
  TempDir master, slave;
  MessageStore m(smallConfig(master.path), testStoreHost());
  REQUIRE(m.open().ok());
  m.start();
  auto scfg = smallConfig(slave.path);
  scfg.brokerRole = "SLAVE";
  MessageStore s(scfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  TestMessage refused("R", 0, "x");
  CHECK((s.append(refused.m).status == PutStatus::SERVICE_NOT_AVAILABLE));
  std::vector<AppendResult> rs;
  for (int i = 0; i < 400; ++i) {
    TestMessage t("R", i % 2, bodyOf(i, 300), "T", "rk" + std::to_string(i));
    rs.push_back(m.append(t.m));
  }
  // Ship in odd-sized chunks (a record may be split across two transfers).
  int64_t off = s.maxPhyOffset();
  while (off < m.maxPhyOffset()) {
    auto chunk = m.readCommitLog(off, 777);
    REQUIRE(chunk);
    REQUIRE(s.appendReplicated(off, chunk.bytes).ok());
    off += static_cast<int64_t>(chunk.bytes.size());
  }
  CHECK_FALSE(s.appendReplicated(off + 1, "zz").ok());  // must continue at the end
  // Both stores dispatch behind their appends: wait for each (bounded) before comparing queues.
  for (int i = 0; i < 5000 && (s.dispatchedPhyOffset() < s.maxPhyOffset() ||
                               m.dispatchedPhyOffset() < m.maxPhyOffset()); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(s.maxPhyOffset() == m.maxPhyOffset());
  for (int q = 0; q < 2; ++q) {
    CHECK(s.maxOffsetInQueue("R", q) == 200);
    auto gm = m.getMessages("R", q, 150, 32, 1 << 30, nullptr);
    auto gs = s.getMessages("R", q, 150, 32, 1 << 30, nullptr);
    REQUIRE(gs.records.size() == gm.records.size());
    for (size_t k = 0; k < gs.records.size(); ++k) CHECK(gs.records[k] == gm.records[k]);
  }
  CHECK(s.queryMessage("R", "rk399", 32, 0, INT64_MAX).records.size() == 1);
  s.shutdown();
  m.shutdown();
}

TEST_CASE("deleteTopics drops consume queues; offsets restart; other topics untouched") {
  TempDir dir;
  MessageStore s(smallConfig(dir.path), testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  for (int i = 0; i < 30; ++i) {
    REQUIRE(s.append(TestMessage("Gone", 0, "g").m).ok());
    REQUIRE(s.append(TestMessage("Kept", 0, "k").m).ok());
  }
  for (int i = 0; i < 5000 && s.dispatchedPhyOffset() < s.maxPhyOffset(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s.deleteTopics({"Gone"});
  CHECK(s.queues().count("Gone") == 0);
  CHECK(s.maxOffsetInQueue("Kept", 0) == 30);
  CHECK(!std::filesystem::exists(dir.path + "/consumequeue/Gone"));
  CHECK((s.getMessages("Gone", 0, 0, 32, 1 << 30, nullptr).status == GetStatus::NO_MATCHED_LOGIC_QUEUE));
  auto r = s.append(TestMessage("Gone", 0, "again").m);
  CHECK(r.queueOffset == 0);
  s.shutdown();
}

namespace {
// Collects every key and alias a config struct declares.
struct KeyCollector : config::FieldVisitor {
  std::map<std::string, std::string> aliasOf;  // alias -> key
  std::map<std::string, std::string> values;
  void note(const config::FieldInfo& f, std::string v) {
    values[std::string(f.name)] = std::move(v);
    for (auto a : f.aliases) aliasOf[std::string(a)] = std::string(f.name);
  }
  void field(const config::FieldInfo& f, bool& v) override { note(f, v ? "true" : "false"); }
  void field(const config::FieldInfo& f, int32_t& v) override { note(f, std::to_string(v)); }
  void field(const config::FieldInfo& f, int64_t& v) override { note(f, std::to_string(v)); }
  void field(const config::FieldInfo& f, double& v) override { note(f, std::to_string(v)); }
  void field(const config::FieldInfo& f, std::string& v) override { note(f, v); }
};
}  // namespace

TEST_CASE("StoreConfig declares RocketMQ key names, 4.4 aliases and defaults") {
  StoreConfig c;
  KeyCollector k;
  c.visit(k);
  CHECK(k.aliasOf["mapedFileSizeCommitLog"] == "mappedFileSizeCommitLog");
  CHECK(k.aliasOf["mapedFileSizeConsumeQueue"] == "mappedFileSizeConsumeQueue");
  CHECK(k.values["mappedFileSizeCommitLog"] == "1073741824");
  CHECK(k.values["mappedFileSizeConsumeQueue"] == "6000000");
  CHECK(k.values["flushDiskType"] == "ASYNC_FLUSH");
  CHECK(k.values["fileReservedTime"] == "72");
  CHECK(k.values["deleteWhen"] == "04");
  CHECK(k.values["brokerRole"] == "ASYNC_MASTER");
  CHECK(k.values.size() >= 30);
  c.mappedFileSizeConsumeQueue = 300001;
  CHECK(c.cqFileSize() == 300020);  // rounded up to whole units
  auto d = c.delayLevelMillis();
  REQUIRE(d.ok());
  CHECK(d->size() == 18);
  CHECK(d->at(0) == 1000);
  CHECK(d->at(17) == 7200000);
  c.messageDelayLevel = "1s 5x";
  CHECK_FALSE(c.delayLevelMillis().ok());
}

TEST_CASE("a waiter beyond what can be flushed gets FLUSH_DISK_TIMEOUT after syncFlushTimeout") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.flushDiskType = "SYNC_FLUSH";
  cfg.syncFlushTimeout = 100;
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  auto r = s.append(TestMessage("T", 0, "x").m);
  REQUIRE(r.ok());
  std::atomic<int> done{0};
  std::atomic<PutStatus> first{PutStatus::UNKNOWN_ERROR}, second{PutStatus::UNKNOWN_ERROR};
  s.asyncWaitDurable(r.endOffset(), [&](PutStatus st) { first = st; ++done; });
  s.asyncWaitDurable(r.endOffset() + 4096, [&](PutStatus st) { second = st; ++done; });  // never written
  for (int i = 0; i < 300 && done < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(done == 2);
  CHECK((first.load() == PutStatus::PUT_OK));
  CHECK((second.load() == PutStatus::FLUSH_DISK_TIMEOUT));
  s.shutdown();
}

TEST_CASE("SYNC_FLUSH + SYNC_MASTER: flush and slave waits start together, each with its own timeout") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.flushDiskType = "SYNC_FLUSH";
  cfg.brokerRole = "SYNC_MASTER";
  cfg.syncFlushTimeout = 1000;
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  CHECK(s.needsStoredWait());
  auto r = s.append(TestMessage("T", 0, "x").m);
  REQUIRE(r.ok());
  struct Outcome {
    std::atomic<bool> done{false};
    std::atomic<PutStatus> st{PutStatus::UNKNOWN_ERROR};
    std::chrono::steady_clock::duration took{};
  };
  auto wait = [&](int64_t end, Outcome& o) {
    auto t0 = std::chrono::steady_clock::now();
    s.asyncWaitStored(end, [&o, t0](PutStatus st) {
      o.took = std::chrono::steady_clock::now() - t0;
      o.st = st;
      o.done = true;
    });
  };
  auto finish = [](Outcome& o) {
    for (int i = 0; i < 1000 && !o.done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    REQUIRE(o.done.load());
    return o.st.load();
  };
  {  // no slave connected: SLAVE_NOT_AVAILABLE, although the flush succeeds
    Outcome o;
    wait(r.endOffset(), o);
    CHECK((finish(o) == PutStatus::SLAVE_NOT_AVAILABLE));
  }
  s.setSlaveAvailable(true);
  {  // flushed and acked
    Outcome o;
    wait(r.endOffset(), o);
    s.notifySlaveAck(r.endOffset());
    CHECK((finish(o) == PutStatus::PUT_OK));
  }
  {  // acked but never flushable (beyond the written end): the flush status
    Outcome o;
    int64_t beyond = r.endOffset() + 4096;
    wait(beyond, o);
    s.notifySlaveAck(beyond);
    CHECK((finish(o) == PutStatus::FLUSH_DISK_TIMEOUT));
  }
  {  // neither flushed nor acked: the replication status wins, and both timeouts ran at once. Run
     // one after the other they would take at least 2 x syncFlushTimeout (each deadline is set when
     // its wait is registered), so this bound cannot pass by chance on a slow box.
    Outcome o;
    wait(r.endOffset() + 8192, o);
    CHECK((finish(o) == PutStatus::FLUSH_SLAVE_TIMEOUT));
    CHECK(o.took >= std::chrono::milliseconds(cfg.syncFlushTimeout));
    CHECK(o.took < std::chrono::milliseconds(2 * cfg.syncFlushTimeout));
  }
  s.shutdown();
}

TEST_CASE("a commit log file of the wrong length stops open() with a clear error") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  {
    MessageStore s(cfg, testStoreHost());
    REQUIRE(s.open().ok());
    s.start();
    REQUIRE(s.append(TestMessage("T", 0, "x").m).ok());
    s.shutdown();
  }
  std::filesystem::resize_file(dir.path + "/commitlog/00000000000000000000", 1000);
  MessageStore s(cfg, testStoreHost());
  auto r = s.open();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("not matched") != std::string::npos);
  // The lock was released: a corrected configuration can open it afterwards.
  std::filesystem::resize_file(dir.path + "/commitlog/00000000000000000000", 65536);
  MessageStore again(cfg, testStoreHost());
  CHECK(again.open().ok());
}

TEST_CASE("idle spins follow the role: off under SYNC_MASTER and on a slave, on for an ASYNC master") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.brokerRole = "SYNC_MASTER";
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  auto& appender = s.appender();
  int runs = 0;
  auto job = [&] { ++runs; };
  const AppendWork work(job);
  // Whether the append thread takes a job in place within ~2 s of tries (it must be idle then).
  auto takesInPlace = [&] {
    for (int i = 0; i < 200; ++i) {
      AppendTicket ticket;
      bool submitted = false;
      const bool done = appender.runWaiting(ticket, work, std::chrono::seconds(5), submitted);
      if (submitted) return done;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  };
  CHECK_FALSE(appender.idleSpin());
  CHECK_FALSE(takesInPlace());  // SYNC_MASTER: the submitter always suspends
  s.setRole("ASYNC_MASTER");  // failover hands the role over at run time
  CHECK(appender.idleSpin());
  CHECK(takesInPlace());
  CHECK(runs == 1);
  s.setRole("SLAVE");
  CHECK_FALSE(appender.idleSpin());
  s.setRole("SYNC_MASTER");
  CHECK_FALSE(appender.idleSpin());
  CHECK_FALSE(takesInPlace());
  s.shutdown();
}
