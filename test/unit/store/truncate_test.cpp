// MessageStore::truncateTo at run time (failover): commit log, consume queues, index, queue
// offsets, waiters, crash safety, concurrent readers; lastRecordBoundaryAtOrBelow.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <thread>

#include "common/message_codec.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;
namespace fs = std::filesystem;

namespace {
constexpr int kTopics = 3, kQueues = 4;
constexpr int64_t kFile = 64 * 1024;  // smallConfig's commit log file size
std::string topicOf(int i) { return "TR" + std::to_string(i % kTopics); }
int queueOf(int i) { return (i / kTopics) % kQueues; }
// "k<i>"; messages appended again after a cut use "n<i>" (same size, so they take the very
// offsets of the cut ones: a stale index entry would point at them).
std::string keyOf(int i, char prefix = 'k') { return prefix + std::to_string(i); }

// Messages [from, to): three topics x four queues, each with its own key.
void append(MessageStore& s, int from, int to, std::vector<AppendResult>& rs, char keyPrefix = 'k') {
  for (int i = from; i < to; ++i) {
    TestMessage t(topicOf(i), queueOf(i), bodyOf(i, 150 + i % 250), "T" + std::to_string(i % 5), keyOf(i, keyPrefix));
    rs.push_back(s.append(t.m));
    REQUIRE(rs.back().ok());
  }
  waitDispatched(s);
}

// The messages i in `ids` that belong to topic/queue, in order.
std::vector<int> inQueue(const std::vector<int>& ids, const std::string& topic, int q) {
  std::vector<int> out;
  for (int i : ids)
    if (topicOf(i) == topic && queueOf(i) == q) out.push_back(i);
  return out;
}

std::vector<int> range(int from, int to) {
  std::vector<int> v;
  for (int i = from; i < to; ++i) v.push_back(i);
  return v;
}

// Every queue holds exactly the messages `ids` (their keys, in order, at consecutive offsets),
// nothing past them is served, the commit log ends at `end`.
void checkQueues(MessageStore& s, const std::vector<int>& ids, int64_t end) {
  CHECK(s.maxPhyOffset() == end);
  for (int t = 0; t < kTopics; ++t) {
    std::string topic = topicOf(t);
    for (int q = 0; q < kQueues; ++q) {
      CAPTURE(topic);
      CAPTURE(q);
      auto want = inQueue(ids, topic, q);
      CHECK(s.maxOffsetInQueue(topic, q) == static_cast<int64_t>(want.size()));
      std::vector<int> got;
      for (int64_t off = 0; off < static_cast<int64_t>(want.size() + 1);) {
        auto g = s.getMessages(topic, q, off, 32, 1 << 30, nullptr);
        if (g.status != GetStatus::FOUND) break;
        for (auto& rec : g.records) {
          auto m = decodeMessage(rec);
          REQUIRE(m.ok());
          got.push_back(std::stoi(m->keys().substr(1)));
        }
        off = g.nextBeginOffset;
      }
      CHECK(got == want);
      CHECK(s.getMessages(topic, q, static_cast<int64_t>(want.size()), 32, 1 << 30, nullptr).records.empty());
    }
  }
}

bool found(MessageStore& s, int i, char prefix = 'k') {
  return !s.queryMessage(topicOf(i), keyOf(i, prefix), 32, 0, INT64_MAX).records.empty();
}

// Bytes of the commit log from `offset` on (its file's tail) are zeros and no later file exists.
void checkZerosFrom(const std::string& root, int64_t offset) {
  int64_t start = offset / kFile * kFile;
  for (auto& e : fs::directory_iterator(root + "/commitlog"))
    CHECK(std::stoll(e.path().filename().string()) <= start);
  if (offset % kFile == 0) return;  // a cut at a file start deletes that file
  int fd = ::open(commitLogFile(root, start).c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  std::string tail(static_cast<size_t>(kFile - offset % kFile), 'x');
  REQUIRE(::pread(fd, tail.data(), tail.size(), offset % kFile) == static_cast<ssize_t>(tail.size()));
  ::close(fd);
  CHECK(tail.find_first_not_of('\0') == std::string::npos);
}
}  // namespace

TEST_CASE("truncateTo: commit log, queues, index and queue offsets follow the cut; appends continue; a restart "
          "brings nothing back") {
  for (bool started : {true, false}) {
    CAPTURE(started);
    TempDir dir;
    auto cfg = smallConfig(dir.path);  // 64 KiB commit log files, 10-unit CQ files, 100-item index files
    std::vector<AppendResult> rs;
    constexpr int kN = 700, kKept = 430;
    {
      MessageStore s(cfg, testStoreHost());
      REQUIRE(s.open().ok());
      s.start();
      append(s, 0, kN, rs);
      REQUIRE(s.maxPhyOffset() > 4 * kFile);
      if (!started) s.shutdown();
    }
    MessageStore s(cfg, testStoreHost());
    REQUIRE(s.open().ok());
    if (started) {
      s.start();
      waitDispatched(s);
    }
    const int64_t cut = rs[kKept].physicalOffset, oldEnd = s.maxPhyOffset();
    REQUIRE(cut % kFile != 0);

    // Not a boundary: refused, nothing changes. The boundary walk finds the record start.
    CHECK_FALSE(s.truncateTo(cut + 1).ok());
    CHECK_FALSE(s.truncateTo(oldEnd + 1).ok());
    CHECK(s.maxPhyOffset() == oldEnd);
    CHECK(s.lastRecordBoundaryAtOrBelow(cut + 17) == cut);
    CHECK(s.lastRecordBoundaryAtOrBelow(cut) == cut);
    CHECK(s.lastRecordBoundaryAtOrBelow(oldEnd + 100) == oldEnd);

    auto r = s.truncateTo(cut);
    REQUIRE(r.ok());
    CHECK(r->offset == cut);
    CHECK(r->messagesCut == kN - kKept);
    CHECK(r->firstCutOffset == cut);
    CHECK(r->lastCutOffset == rs[kN - 1].physicalOffset);
    CHECK(r->bytesCut == oldEnd - cut);
    if (!started) s.start();

    checkQueues(s, range(0, kKept), cut);
    CHECK(s.dispatchedPhyOffset() == cut);
    CHECK(found(s, 0));
    CHECK(found(s, kKept - 1));
    for (int i : {kKept, kKept + 1, kKept + 150, kN - 1}) CHECK_FALSE(found(s, i));
    CHECK_FALSE(s.lookMessageByOffset(cut));
    checkZerosFrom(dir.path, cut);

    // Appends go on at the cut, each queue's offsets right after its survivors.
    rs.resize(kKept);
    append(s, kKept, kKept + 120, rs, 'n');
    CHECK(rs[kKept].physicalOffset == cut);
    std::map<std::pair<std::string, int>, int64_t> next;
    for (int i = 0; i < kKept + 120; ++i) {
      auto key = std::make_pair(topicOf(i), queueOf(i));
      if (i >= kKept) CHECK(rs[i].queueOffset == next[key]);
      ++next[key];
    }
    auto ids = range(0, kKept + 120);
    checkQueues(s, ids, rs.back().endOffset());
    auto checkKeys = [&](MessageStore& st) {
      for (int i : {kKept, kKept + 1, kKept + 60, kKept + 119}) {
        CHECK(found(st, i, 'n'));  // indexed, though at offsets the cut index entries held
        CHECK_FALSE(found(st, i, 'k'));
      }
      CHECK_FALSE(found(st, kN - 1, 'k'));
      CHECK(found(st, kKept - 1, 'k'));
    };
    checkKeys(s);
    const int64_t end = s.maxPhyOffset();
    s.shutdown();

    MessageStore again(cfg, testStoreHost());
    REQUIRE(again.open().ok());
    again.start();
    checkQueues(again, ids, end);
    checkKeys(again);
    again.shutdown();
  }
}

TEST_CASE("truncateTo at a file start: that file goes, the one before keeps its blank marker, appends roll over") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  std::vector<AppendResult> rs;
  append(s, 0, 500, rs);
  int first = 0;  // the first record of the third file
  while (rs[first].physicalOffset < 2 * kFile) ++first;
  const int64_t cut = rs[first].physicalOffset;
  REQUIRE(cut == 2 * kFile);
  CHECK(s.lastRecordBoundaryAtOrBelow(cut - 1) < cut);  // inside the blank marker: its start
  CHECK(s.lastRecordBoundaryAtOrBelow(cut - 1) == rs[first - 1].endOffset());
  auto r = s.truncateTo(cut);
  REQUIRE(r.ok());
  CHECK(r->messagesCut == 500 - first);
  CHECK_FALSE(fs::exists(commitLogFile(dir.path, cut)));
  checkQueues(s, range(0, first), cut);
  rs.resize(first);
  append(s, first, first + 20, rs, 'n');
  CHECK(rs[first].physicalOffset == cut);
  checkQueues(s, range(0, first + 20), rs.back().endOffset());
  s.shutdown();
  MessageStore again(cfg, testStoreHost());
  REQUIRE(again.open().ok());
  again.start();
  checkQueues(again, range(0, first + 20), rs.back().endOffset());
  CHECK(found(again, first + 5, 'n'));
  again.shutdown();
}

TEST_CASE("truncateTo then kill -9: the abnormal restart brings nothing back") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  std::vector<AppendResult> rs;
  constexpr int kN = 600, kKept = 250;
  {
    MessageStore s(cfg, testStoreHost());
    REQUIRE(s.open().ok());
    s.start();
    append(s, 0, kN, rs);
    s.shutdown();
  }
  const int64_t cut = rs[kKept].physicalOffset;
  // The child opens, cuts and dies without a shutdown (abort file left, nothing flushed by a
  // shutdown): what truncateTo left behind is all a restart sees.
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    MessageStore s(cfg, testStoreHost());
    bool ok = s.open().ok();
    if (ok) s.start();
    ok = ok && s.truncateTo(cut).ok();
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  REQUIRE(fs::exists(dir.path + "/abort"));
  checkZerosFrom(dir.path, cut);

  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  checkQueues(s, range(0, kKept), cut);
  CHECK(found(s, kKept - 1));
  for (int i : {kKept, kKept + 100, kN - 1}) CHECK_FALSE(found(s, i));
  rs.resize(kKept);
  append(s, kKept, kKept + 30, rs);
  CHECK(rs[kKept].physicalOffset == cut);
  checkQueues(s, range(0, kKept + 30), rs.back().endOffset());
  s.shutdown();
}

TEST_CASE("a partial replicated record: lastRecordBoundaryAtOrBelow finds the previous end; truncateTo cuts it") {
  TempDir master, slave;
  MessageStore m(smallConfig(master.path), testStoreHost());
  REQUIRE(m.open().ok());
  m.start();
  std::vector<AppendResult> rs;
  append(m, 0, 200, rs);
  auto scfg = smallConfig(slave.path);
  scfg.brokerRole = "SLAVE";
  MessageStore s(scfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  // Everything up to the middle of the last record (the HA stream is not message-aligned).
  const AppendResult& last = rs.back();
  const int64_t partialEnd = last.physicalOffset + last.wroteBytes / 2;
  for (int64_t off = 0; off < partialEnd;) {
    auto chunk = m.readCommitLog(off, static_cast<size_t>(partialEnd - off));
    REQUIRE(chunk);
    REQUIRE(s.appendReplicated(off, chunk.bytes).ok());
    off += static_cast<int64_t>(chunk.bytes.size());
  }
  REQUIRE(s.maxPhyOffset() == partialEnd);
  CHECK(s.lastRecordBoundaryAtOrBelow(s.maxPhyOffset()) == last.physicalOffset);
  CHECK(s.lastRecordBoundaryAtOrBelow(last.physicalOffset - 1) == rs[rs.size() - 2].physicalOffset);
  CHECK_FALSE(s.truncateTo(last.physicalOffset + 1).ok());
  auto r = s.truncateTo(s.lastRecordBoundaryAtOrBelow(s.maxPhyOffset()));
  REQUIRE(r.ok());
  CHECK(r->messagesCut == 0);
  CHECK(r->firstCutOffset == -1);
  CHECK(r->bytesCut == partialEnd - last.physicalOffset);
  CHECK(s.maxPhyOffset() == last.physicalOffset);
  checkZerosFrom(slave.path, last.physicalOffset);
  // Replication resumes at the cut and the queues come out whole.
  auto rest = m.readCommitLog(last.physicalOffset, static_cast<size_t>(last.wroteBytes));
  REQUIRE(s.appendReplicated(last.physicalOffset, rest.bytes).ok());
  waitDispatched(s);
  checkQueues(s, range(0, 200), m.maxPhyOffset());
  s.shutdown();
  m.shutdown();
}

TEST_CASE("truncateTo: flush and slave-ack waiters beyond the cut get SERVICE_NOT_AVAILABLE at once") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  cfg.flushDiskType = "SYNC_FLUSH";
  cfg.brokerRole = "SYNC_MASTER";
  cfg.syncFlushTimeout = 60000;  // a waiter that is not completed by the cut would hang the test
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  s.setSlaveAvailable(true);
  std::vector<AppendResult> rs;
  append(s, 0, 50, rs);
  std::atomic<int> done{0};
  std::atomic<PutStatus> below{PutStatus::UNKNOWN_ERROR}, beyondAck{PutStatus::UNKNOWN_ERROR},
      beyondFlush{PutStatus::UNKNOWN_ERROR};
  s.asyncWaitReplicated(rs[10].endOffset(), [&](PutStatus st) { below = st; ++done; });
  s.asyncWaitReplicated(rs[40].endOffset(), [&](PutStatus st) { beyondAck = st; ++done; });
  s.asyncWaitDurable(s.maxPhyOffset() + 4096, [&](PutStatus st) { beyondFlush = st; ++done; });  // never written
  REQUIRE(s.truncateTo(rs[30].physicalOffset).ok());
  for (int i = 0; i < 500 && done < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(done == 2);
  CHECK((beyondAck.load() == PutStatus::SERVICE_NOT_AVAILABLE));
  CHECK((beyondFlush.load() == PutStatus::SERVICE_NOT_AVAILABLE));
  s.notifySlaveAck(rs[10].endOffset());  // the waiter below the cut still waits for its ack
  for (int i = 0; i < 500 && done < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK((below.load() == PutStatus::PUT_OK));
  CHECK(s.slaveAckedOffset() <= rs[30].physicalOffset);
  // Sends after the cut are flushed and answered as before.
  auto r = s.append(TestMessage(topicOf(0), 0, "after").m);
  REQUIRE(r.ok());
  CHECK(r.physicalOffset == rs[30].physicalOffset);
  std::atomic<PutStatus> after{PutStatus::UNKNOWN_ERROR};
  s.asyncWaitDurable(r.endOffset(), [&](PutStatus st) { after = st; ++done; });
  for (int i = 0; i < 500 && done < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK((after.load() == PutStatus::PUT_OK));
  CHECK(s.flushedPhyOffset() >= r.endOffset());
  s.shutdown();
}

TEST_CASE("truncateTo while readers pull, query and read the commit log: no crash, held results stay readable") {
  TempDir dir;
  MessageStore s(smallConfig(dir.path), testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  std::vector<AppendResult> rs;
  append(s, 0, 800, rs);
  // A result held across the cut that deletes its file (the first record of the last file; the
  // first cut is in the file before): its memory stays mapped and unchanged.
  int held1 = 0;
  while (rs[held1].physicalOffset < rs.back().physicalOffset / kFile * kFile) ++held1;
  REQUIRE(held1 > 600);
  auto held = s.getMessages(topicOf(held1), queueOf(held1), rs[held1].queueOffset, 1, 1 << 30, nullptr);
  REQUIRE(held.records.size() == 1);
  REQUIRE(held.records[0].data() != nullptr);
  const std::string heldCopy(held.records[0]);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> rounds{0}, bytesSeen{0};
  std::thread reader([&] {
    while (!stop) {
      for (int t = 0; t < kTopics; ++t)
        for (int q = 0; q < kQueues; ++q) {
          auto g = s.getMessages(topicOf(t), q, 0, 64, 1 << 30, nullptr);
          for (auto& rec : g.records) bytesSeen += static_cast<unsigned char>(rec.back());
        }
      auto qr = s.queryMessage(topicOf(700), keyOf(700), 32, 0, INT64_MAX);
      for (auto& rec : qr.records) bytesSeen += static_cast<unsigned char>(rec.front());
      auto raw = s.readCommitLog(rs[600].physicalOffset, 4096);
      if (raw) bytesSeen += static_cast<unsigned char>(raw.bytes.back());
      ++rounds;
    }
  });
  for (int kept : {held1 - 5, 500, 400, 300}) {
    int64_t before = rounds;
    for (int i = 0; i < 2000 && rounds < before + 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    REQUIRE(s.truncateTo(rs[kept].physicalOffset).ok());
    CHECK(s.maxPhyOffset() == rs[kept].physicalOffset);
  }
  int64_t before = rounds;
  for (int i = 0; i < 2000 && rounds < before + 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  stop = true;
  reader.join();
  CHECK(rounds > 0);
  CHECK(held.records[0] == heldCopy);
  checkQueues(s, range(0, 300), rs[300].physicalOffset);
  s.shutdown();
}
