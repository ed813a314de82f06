// A full disk through the ENOSPC fault point (store/disk_space.h): file creation, block
// reservation and small-file writes fail as on a full file system. The store must answer error
// values, skip nothing it acknowledged, and resume by itself once space is back.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "common/response_code.h"

#include "store/checkpoint.h"
#include "store/disk_space.h"
#include "store/mapped_file.h"
#include "tmpfs_mount.h"
#include "unit/store/store_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;
namespace fs = std::filesystem;

namespace {
// Turns the fault on for the scope (off again even when a REQUIRE fails).
struct DiskFull {
  DiskFull() { setInjectedDiskFull(true); }
  ~DiskFull() { setInjectedDiskFull(false); }
  void release() { setInjectedDiskFull(false); }
};

struct Acked {
  int index;
  AppendResult r;
};

// Appends "k<i>" (i = from, from+1, ...) to DF/0 until 20 appends were refused in all, or n were tried.
std::vector<Acked> sendUntilRefused(MessageStore& s, int from, int n, std::vector<AppendResult>& refusals) {
  std::vector<Acked> acked;
  for (int i = from; i < from + n; ++i) {
    TestMessage t("DF", 0, bodyOf(i, 300), "T", "k" + std::to_string(i));
    auto r = s.append(t.m);
    if (r.ok()) {
      acked.push_back({i, r});
    } else {
      refusals.push_back(r);
      if (refusals.size() >= 20) break;
    }
  }
  return acked;
}

std::string readWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool waitFor(const std::function<bool()>& cond) {
  for (int i = 0; i < 3000; ++i) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return cond();
}

// Every acked message is in queue DF/0 at consecutive offsets, byte-exact, and found by its key.
void checkAllReadable(MessageStore& s, const std::vector<Acked>& acked) {
  REQUIRE(waitFor([&] { return s.dispatchedPhyOffset() >= s.maxPhyOffset(); }));
  REQUIRE(s.maxOffsetInQueue("DF", 0) == static_cast<int64_t>(acked.size()));
  size_t next = 0;
  int64_t off = 0;
  for (int loops = 0; loops < 10000 && off < s.maxOffsetInQueue("DF", 0); ++loops) {
    auto g = s.getMessages("DF", 0, off, 32, 1 << 30, nullptr);
    REQUIRE((g.status == GetStatus::FOUND));
    for (auto& rec : g.records) {
      auto m = decodeMessage(rec);
      REQUIRE(m.ok());
      REQUIRE(next < acked.size());
      CHECK(m->keys() == "k" + std::to_string(acked[next].index));
      CHECK(m->commitLogOffset == acked[next].r.physicalOffset);
      CHECK(m->queueOffset == static_cast<int64_t>(next));
      ++next;
    }
    off = g.nextBeginOffset;
  }
  CHECK(next == acked.size());
  for (auto& a : acked) {
    auto q = s.queryMessage("DF", "k" + std::to_string(a.index), 32, 0, INT64_MAX);
    CHECK_MESSAGE(q.records.size() == 1, "key k" << a.index);
  }
}
}  // namespace

TEST_CASE("fault point: creation, reservation and writes fail with ENOSPC; no half-made file is left") {
  TempDir dir;
  {
    DiskFull full;
    auto f = MappedFile::create(dir.path + "/00000000000000000000", 0, 64 * 1024, MappedFile::Backing::Reserved);
    REQUIRE_FALSE(f.ok());
    CHECK(isNoSpace(f.error()));
    CHECK(f.error().message.find("No space left") != std::string::npos);
    CHECK_FALSE(fs::exists(dir.path + "/00000000000000000000"));
  }
  auto f = MappedFile::create(dir.path + "/00000000000000000000", 0, 64 * 1024, MappedFile::Backing::Sparse);
  REQUIRE(f.ok());
  {
    DiskFull full;
    auto r = f.value()->reserveRange(0, 4096);
    REQUIRE_FALSE(r.ok());
    CHECK(isNoSpace(r.error()));
  }
  CHECK(f.value()->reserveRange(0, 4096).ok());

  // Config files (topics.json, consumerOffset.json ...) are replaced whole or not at all.
  std::string path = dir.path + "/topics.json";
  REQUIRE(replaceFileAtomically(path, "{\"v\":1}").ok());
  {
    DiskFull full;
    auto r = replaceFileAtomically(path, "{\"v\":2, \"more\": \"content\"}");
    REQUIRE_FALSE(r.ok());
    CHECK(isNoSpace(r.error()));
  }
  CHECK(readWhole(path) == "{\"v\":1}");
  CHECK_FALSE(fs::exists(path + ".tmp"));
  REQUIRE(replaceFileAtomically(path, "{\"v\":3}").ok());
  CHECK(readWhole(path) == "{\"v\":3}");
}

TEST_CASE("checkpoint: a flush on a full disk fails as a value and keeps the last good content") {
  TempDir dir;
  std::string path = dir.path + "/checkpoint";
  {
    Checkpoint cp(path);
    REQUIRE(cp.load().ok());
    cp.setPhysicMsgTimestamp(111);
    cp.setLogicsMsgTimestamp(222);
    cp.setIndexMsgTimestamp(333);
    REQUIRE(cp.flush().ok());
    DiskFull full;
    cp.setPhysicMsgTimestamp(999);
    auto r = cp.flush();
    REQUIRE_FALSE(r.ok());
    CHECK(isNoSpace(r.error()));
  }
  Checkpoint again(path);
  REQUIRE(again.load().ok());
  CHECK(again.physicMsgTimestamp() == 111);
  CHECK(again.logicsMsgTimestamp() == 222);
  CHECK(again.indexMsgTimestamp() == 333);
}

TEST_CASE("full disk: appends refused with Java's codes, nothing acknowledged is skipped, writes resume") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);  // 64 KiB commit log files, 10 units per CQ file, 100 keys per index file
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  std::vector<AppendResult> refusals;
  auto acked = sendUntilRefused(s, 0, 50, refusals);
  REQUIRE(acked.size() == 50);
  REQUIRE(waitFor([&] { return s.dispatchedPhyOffset() >= s.maxPhyOffset(); }));

  DiskFull full;
  // Appends go on into blocks reserved before, then stop: a consume-queue / index / commit log
  // file cannot be created. Never a fault, never a message acknowledged and then lost.
  auto more = sendUntilRefused(s, 50, 2000, refusals);
  acked.insert(acked.end(), more.begin(), more.end());
  REQUIRE(refusals.size() == 20);
  CHECK(acked.size() < 2050);
  for (auto& r : refusals) {
    bool expected = r.status == PutStatus::SERVICE_NOT_AVAILABLE || r.status == PutStatus::CREATE_MAPPED_FILE_FAILED;
    CHECK_MESSAGE(expected, toString(r.status) << ": " << r.error);
    CHECK(toResponseCode(r.status) != ResponseCode::SUCCESS);
  }
  CHECK(toResponseCode(PutStatus::SERVICE_NOT_AVAILABLE) == ResponseCode::SERVICE_NOT_AVAILABLE);
  CHECK(toResponseCode(PutStatus::CREATE_MAPPED_FILE_FAILED) == ResponseCode::SYSTEM_ERROR);
  std::string remark = s.remarkFor(PutStatus::SERVICE_NOT_AVAILABLE);
  CHECK(remark.find("service not available now. It may be caused by one of the following reasons: the broker's "
                    "disk is full [CL: ") == 0);
  CHECK(s.remarkFor(PutStatus::CREATE_MAPPED_FILE_FAILED) == "create mapped file failed, server is busy or broken.");

  // Reads of what is already in its queue keep working while full.
  auto g = s.getMessages("DF", 0, 0, 8, 1 << 30, nullptr);
  CHECK((g.status == GetStatus::FOUND));
  CHECK(g.records.size() == 8);

  // Space comes back: the stalled dispatch goes through and appends resume without a restart.
  full.release();
  TestMessage t("DF", 0, bodyOf(5000, 300), "T", "k5000");
  AppendResult r;
  REQUIRE(waitFor([&] {
    r = s.append(t.m);
    return r.ok();
  }));
  acked.push_back({5000, r});
  auto after = sendUntilRefused(s, 6000, 300, refusals);  // crosses commit log, CQ and index files again
  CHECK(after.size() == 300);
  acked.insert(acked.end(), after.begin(), after.end());
  checkAllReadable(s, acked);
  s.shutdown();

  // And the same after a restart: recovery finds every acknowledged message in its queue.
  MessageStore again(cfg, testStoreHost());
  REQUIRE(again.open().ok());
  again.start();
  checkAllReadable(again, acked);
  again.shutdown();
}

TEST_CASE("full disk at startup: a store whose queues cannot be extended opens, serves reads, refuses writes") {
  TempDir dir;
  auto cfg = smallConfig(dir.path);
  std::vector<Acked> acked;
  {
    MessageStore s(cfg, testStoreHost());
    REQUIRE(s.open().ok());
    s.start();
    std::vector<AppendResult> refusals;
    acked = sendUntilRefused(s, 0, 95, refusals);  // the 10th CQ file holds 5 of 10 units
    REQUIRE(acked.size() == 95);
    s.shutdown();
  }
  DiskFull full;
  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());
  s.start();
  auto g = s.getMessages("DF", 0, 90, 32, 1 << 30, nullptr);
  CHECK((g.status == GetStatus::FOUND));
  CHECK(g.records.size() == 5);
  std::vector<AppendResult> refusals;
  auto more = sendUntilRefused(s, 95, 2000, refusals);
  CHECK(refusals.size() == 20);
  acked.insert(acked.end(), more.begin(), more.end());
  full.release();
  REQUIRE(waitFor([&] { return s.isWriteable(); }));
  checkAllReadable(s, acked);
  s.shutdown();
}

TEST_CASE("a Java-style sparse store on a 100 % full tmpfs: recovery reads no hole, reads served, writes resume") {
  TempDir dir;
  rmq::test::TmpfsMount mnt(dir.path + "/fs", "8m");
  if (!mnt.ok()) {
    MESSAGE("skipping: cannot mount a tmpfs here (" << mnt.error() << "); needs root / CAP_SYS_ADMIN as on CI");
    return;
  }
  auto cfg = smallConfig(mnt.dir() + "/store");
  cfg.mappedFileSizeConsumeQueue = 2000 * 20;
  std::vector<Acked> acked;
  int64_t end = 0;
  {
    MessageStore s(cfg, testStoreHost());
    REQUIRE(s.open().ok());
    s.start();
    std::vector<AppendResult> refusals;
    acked = sendUntilRefused(s, 0, 1024, refusals);  // the CQ data ends exactly on a page boundary
    REQUIRE(acked.size() == 1024);
    end = s.maxPhyOffset();
    s.shutdown();
  }
  // Make the files sparse past their data, as the Java broker leaves them (it never reserves).
  auto punch = [](const std::string& path, int64_t from, int64_t size) {
    int fd = ::open(path.c_str(), O_RDWR);
    REQUIRE(fd >= 0);
    CHECK(::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, from, size - from) == 0);
    ::close(fd);
  };
  punch(cfg.consumeQueueDir() + "/DF/0/00000000000000000000", 1024 * 20, cfg.mappedFileSizeConsumeQueue);
  int64_t lastStart = end - end % cfg.mappedFileSizeCommitLog;
  punch(cfg.commitLogDir() + "/" + MappedFile::fileName(lastStart), (end - lastStart + 4095) / 4096 * 4096,
        cfg.mappedFileSizeCommitLog);
  {  // fill the file system to the last block
    std::ofstream filler(mnt.dir() + "/filler", std::ios::binary);
    std::string chunk(4096, 'f');
    while (filler.write(chunk.data(), static_cast<std::streamsize>(chunk.size())) && filler.flush()) {}
  }
  CHECK(mnt.freeBytes() < 4096);

  MessageStore s(cfg, testStoreHost());
  REQUIRE(s.open().ok());  // a read fault on a hole here would be a SIGBUS
  s.start();
  CHECK(s.maxOffsetInQueue("DF", 0) == 1024);
  auto g = s.getMessages("DF", 0, 1020, 32, 1 << 30, nullptr);
  CHECK((g.status == GetStatus::FOUND));
  CHECK(g.records.size() == 4);
  std::vector<AppendResult> refusals;
  auto more = sendUntilRefused(s, 1024, 100, refusals);
  CHECK(refusals.size() == 20);
  acked.insert(acked.end(), more.begin(), more.end());

  fs::remove(mnt.dir() + "/filler");  // the operator frees space: writes resume by themselves
  TestMessage t("DF", 0, bodyOf(9000, 300), "T", "k9000");
  AppendResult r;
  REQUIRE(waitFor([&] {
    r = s.append(t.m);
    return r.ok();
  }));
  acked.push_back({9000, r});
  checkAllReadable(s, acked);
  s.shutdown();
}

TEST_CASE("disk used ratio: Java 4.9.8's used / (used + usable), rounded up to a hundredth") {
  TempDir dir;
  auto space = diskSpace(dir.path);
  REQUIRE(space);
  CHECK(space->totalBytes > 0);
  CHECK(space->freeBytes >= space->usableBytes);  // blocks reserved for root count as free, not usable
  int64_t used = space->totalBytes - space->freeBytes;
  double expected = std::ceil(static_cast<double>(used) * 100.0 / static_cast<double>(used + space->usableBytes)) / 100.0;
  CHECK(std::abs(diskUsedRatio(dir.path) - expected) <= 0.011);  // the disk may move between the calls
  double hundredths = diskUsedRatio(dir.path) * 100.0;
  CHECK(std::abs(hundredths - std::round(hundredths)) < 1e-9);
  CHECK(diskUsedRatio(dir.path + "/missing") == -1);
}
