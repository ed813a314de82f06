// A damaged store on real files, then a start: the commit log tail lost after a clean shutdown,
// garbage in a consume queue file (recent: cut and rebuilt from the commit log; old: never
// served), an index file missing (newest, middle, all: rebuilt), a consume queue file of the wrong
// length (refused with a clear message). Never garbage served, nothing valid lost.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "common/bytes.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;
namespace fs = std::filesystem;

namespace {

constexpr int kMessages = 700;  // 4 queues x 175: 18 consume queue files each (10 units per file)

std::vector<AppendResult> filledStore(const StoreConfig& cfg) {
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  std::vector<AppendResult> rs;
  for (int i = 0; i < kMessages; ++i) {
    TestMessage t("Q", i % 4, bodyOf(i, 150 + i % 200), "T", "key" + std::to_string(i));
    rs.push_back(s.append(t.m));
    REQUIRE(rs.back().ok());
  }
  for (int i = 0; i < 5000 && s.dispatchedPhyOffset() < s.maxPhyOffset(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  s.shutdown();
  return rs;
}

std::string cqFile(const std::string& root, int queueId, int64_t unit) {
  char name[32];
  std::snprintf(name, sizeof name, "%020lld", static_cast<long long>(unit * 20));
  return root + "/consumequeue/Q/" + std::to_string(queueId) + "/" + name;
}

void writeAt(const std::string& path, int64_t pos, const std::string& bytes) {
  int fd = ::open(path.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, bytes.data(), bytes.size(), pos) == static_cast<ssize_t>(bytes.size()));
  ::close(fd);
}

std::string unitBytes(int64_t phy, int32_t size, int64_t tags) {
  std::string u(20, '\0');
  storeBE64(u.data(), static_cast<uint64_t>(phy));
  storeBE32(u.data() + 8, static_cast<uint32_t>(size));
  storeBE64(u.data() + 12, static_cast<uint64_t>(tags));
  return u;
}

// Pulls queue Q/qid from its start: the message numbers in queue order; REQUIREs that every record
// served is a whole message of that queue at the queue offset it was served for.
std::vector<int> pullQueue(MessageStore& s, int qid) {
  std::vector<int> got;
  int64_t off = s.minOffsetInQueue("Q", qid);
  for (int loops = 0; loops < 1000 && off < s.maxOffsetInQueue("Q", qid); ++loops) {
    auto g = s.getMessages("Q", qid, off, 32, 1 << 30, nullptr);
    if (g.status != GetStatus::FOUND) {
      off = g.nextBeginOffset > off ? g.nextBeginOffset : off + 1;
      continue;
    }
    for (size_t k = 0; k < g.records.size(); ++k) {
      auto m = decodeMessage(g.records[k]);
      REQUIRE(m.ok());
      REQUIRE(m->queueId == qid);
      REQUIRE(m->queueOffset == g.queueOffsets[k]);
      REQUIRE(m->bodyCRC == crc32Masked(m->body));
      got.push_back(std::stoi(m->keys().substr(3)));
    }
    off = g.nextBeginOffset;
  }
  return got;
}

std::vector<int> expectedQueue(int qid, int upTo = kMessages) {
  std::vector<int> v;
  for (int i = qid; i < upTo; i += 4) v.push_back(i);
  return v;
}

size_t hits(MessageStore& s, int i) { return s.queryMessage("Q", "key" + std::to_string(i), 32, 0, INT64_MAX).records.size(); }

}  // namespace

TEST_CASE("damaged store: the commit log tail lost after a clean shutdown (zeros) — start cuts at the last whole "
          "record; its stale queue units and index entries serve nothing; appends continue") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  auto rs = filledStore(cfg);
  const AppendResult& victim = rs[650];
  char name[32];
  std::snprintf(name, sizeof name, "%020lld", static_cast<long long>(victim.physicalOffset / 65536 * 65536));
  int64_t pos = victim.physicalOffset % 65536 + victim.wroteBytes / 2;  // half a record, then zeros
  writeAt(dir.path + "/commitlog/" + name, pos, std::string(static_cast<size_t>(65536 - pos), '\0'));
  for (int64_t f = victim.physicalOffset / 65536 * 65536 + 65536; f < rs.back().endOffset(); f += 65536) {
    std::snprintf(name, sizeof name, "%020lld", static_cast<long long>(f));
    writeAt(dir.path + "/commitlog/" + name, 0, std::string(65536, '\0'));  // later files lost too
  }
  MessageStore s(cfg, testStoreHost());  // no abort file: a normal start
  REQUIRE(s.open().ok());
  s.start();
  CHECK(s.maxPhyOffset() == victim.physicalOffset);
  for (int q = 0; q < 4; ++q) CHECK(pullQueue(s, q) == expectedQueue(q, 650));
  CHECK(hits(s, 649) == 1);
  CHECK(hits(s, 690) == 0);  // its index entry points past the end
  // New messages take the lost ones' place: a stale index entry must not answer them.
  for (int i = 0; i < 60; ++i) REQUIRE(s.append(TestMessage("Q", i % 4, bodyOf(i, 300), "T", "new" + std::to_string(i)).m).ok());
  for (int i = 0; i < 5000 && s.dispatchedPhyOffset() < s.maxPhyOffset(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  for (int i = 650; i < kMessages; ++i) CHECK_MESSAGE(hits(s, i) == 0, "key" << i);
  CHECK(s.queryMessage("Q", "new7", 32, 0, INT64_MAX).records.size() == 1);
  CHECK(s.maxOffsetInQueue("Q", 2) == static_cast<int64_t>(expectedQueue(2, 650).size()) + 15);
  s.shutdown();
}

TEST_CASE("damaged store: garbage in a recent consume queue file — cut at start and rebuilt from the commit log") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  filledStore(cfg);
  // Queue 1 has 175 units: its last file holds units 170..174. Garbage over units 171..172, and a
  // unit going backwards in the commit log at 165 (2nd-last file).
  std::string garbage(40, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(0x5A ^ (i * 37));
  writeAt(cqFile(dir.path, 1, 170), 20, garbage);
  writeAt(cqFile(dir.path, 1, 160), 5 * 20, unitBytes(100, 150, 0));
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  for (int i = 0; i < 5000 && s.dispatchedPhyOffset() < s.maxPhyOffset(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(s.maxOffsetInQueue("Q", 1) == 175);
  for (int q = 0; q < 4; ++q) CHECK(pullQueue(s, q) == expectedQueue(q));
  for (int i : {1, 653, 661, 697}) CHECK_MESSAGE(hits(s, i) == 1, "key" << i);  // the index is not repeated
  s.shutdown();
}

TEST_CASE("damaged store: an old consume queue unit pointing at another message is skipped, never served") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  auto rs = filledStore(cfg);
  // Queue 0, unit 5 (first file: start-up does not re-validate files that old) -> message 3's record (queue 3).
  writeAt(cqFile(dir.path, 0, 0), 5 * 20, unitBytes(rs[3].physicalOffset, rs[3].wroteBytes, 0));
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  auto want = expectedQueue(0);
  want.erase(want.begin() + 5);  // message 20 cannot be found through its queue any more
  CHECK(pullQueue(s, 0) == want);
  CHECK(hits(s, 20) == 1);  // still in the commit log and the index
  s.shutdown();
}

TEST_CASE("damaged store: an index file missing (the newest, one in the middle, or every one) — rebuilt from the "
          "commit log at start") {
  for (int which : {0, 1, 2}) {
    CAPTURE(which);  // 0 newest, 1 middle, 2 all
    TempDir dir;
    auto cfg = smallConfig(dir.path);  // 100 keys per index file: 7 files (each message has 1 key)
    filledStore(cfg);
    std::vector<fs::path> files;
    for (auto& e : fs::directory_iterator(dir.path + "/index")) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 3);
    if (which == 2) fs::remove_all(dir.path + "/index");
    else fs::remove(which == 0 ? files.back() : files[2]);
    MessageStore s(cfg, testStoreHost());
    REQUIRE(s.open().ok());
    s.start();
    for (int i = 0; i < 5000 && s.dispatchedPhyOffset() < s.maxPhyOffset(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    int wrong = 0;
    for (int i = 0; i < kMessages; ++i)
      if (hits(s, i) != 1 && ++wrong <= 5) FAIL_CHECK("key" << i << ": " << hits(s, i) << " hits");
    CHECK(wrong == 0);
    for (int q = 0; q < 4; ++q) CHECK(pullQueue(s, q) == expectedQueue(q));
    s.shutdown();
  }
}

TEST_CASE("damaged store: a consume queue file of the wrong length stops the start with a clear message") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  filledStore(cfg);
  fs::resize_file(cqFile(dir.path, 2, 50), 130);
  MessageStore s(cfg, testStoreHost());
  auto r = s.open();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find(cqFile(dir.path, 2, 50)) != std::string::npos);
  CHECK(r.error().message.find("length 130") != std::string::npos);
}
