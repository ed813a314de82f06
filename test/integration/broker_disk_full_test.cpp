// A full disk (issue 12) against a real rmqnode: through the ENOSPC fault point
// (RMQNODE_FAULT_ENOSPC), on a real 48 MB tmpfs that retention keeps cycling, and with a
// Java-written store on a tmpfs filled to 99 %. The broker never dies, refuses sends with
// RocketMQ's codes while full, keeps serving reads, and resumes by itself.
#include <doctest/doctest.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <thread>

#include "broker_calls.h"
#include "client/request_headers.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "namesrv_client.h"
#include "tmpfs_mount.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::test;
namespace fs = std::filesystem;

namespace {
using Clock = std::chrono::steady_clock;

// Writes a filler file so that `dir`'s file system is `ratio` used.
void fillTo(const std::string& dir, double ratio) {
  struct statvfs st {};
  REQUIRE(::statvfs(dir.c_str(), &st) == 0);
  double total = static_cast<double>(st.f_blocks) * static_cast<double>(st.f_frsize);
  double used = total - static_cast<double>(st.f_bfree) * static_cast<double>(st.f_frsize);
  auto bytes = static_cast<int64_t>(total * ratio - used);
  REQUIRE(bytes > 0);
  std::ofstream out(dir + "/filler", std::ios::binary);
  std::string chunk(1 << 16, 'f');
  for (int64_t left = bytes; left > 0; left -= static_cast<int64_t>(chunk.size()))
    out.write(chunk.data(), static_cast<std::streamsize>(std::min<int64_t>(left, static_cast<int64_t>(chunk.size()))));
  out.close();
  REQUIRE(out.good());
}

// The node's TOML with one [store] key's value replaced (DevNode writes a default for it).
std::string bodyFor(int i, size_t size) {
  std::string b = "m" + std::to_string(i) + ":";
  while (b.size() < size) b.push_back(static_cast<char>('a' + (b.size() * 7 + static_cast<size_t>(i)) % 26));
  return b;
}

int64_t queueOffset(TestClient& c, const std::string& addr, int request, const std::string& topic, int qid) {
  auto r = c.call(addr, client::makeQueueOffsetRequest(request, topic, qid));
  return r.ok() && r->code == ResponseCode::SUCCESS ? extInt(*r, "offset") : -1;
}

// Pulls topic/qid from `from` to its end: queue offset -> keys. Offsets retention removed while
// pulling are skipped (the pull answers where the queue now starts).
std::map<int64_t, std::string> pullAll(TestClient& c, const std::string& addr, const std::string& topic, int qid,
                                       int64_t from) {
  std::map<int64_t, std::string> got;
  int64_t off = from;
  for (int loops = 0; loops < 20000; ++loops) {
    auto r = c.call(addr, pullRequest({.topic = topic, .queueId = qid, .offset = off, .maxMsgNums = 32}));
    REQUIRE_OK(r);
    if (r->code == ResponseCode::SUCCESS) {
      auto msgs = pulledMessages(*r);
      REQUIRE_FALSE(msgs.empty());
      for (auto& m : msgs) got[m.queueOffset] = m.keys();
      off = extInt(*r, "nextBeginOffset");
      continue;
    }
    int64_t next = extInt(*r, "nextBeginOffset");
    if (next > off) {  // OFFSET_MOVED / too small: the queue starts later now
      off = next;
      continue;
    }
    CHECK_MESSAGE(r->code == ResponseCode::PULL_NOT_FOUND, "pull code " << r->code << " " << r->remark.value_or(""));
    break;
  }
  return got;
}

struct SendLog {
  std::map<int64_t, int> acked;  // queue offset -> message number of every SEND_OK
  int refusedFull = 0;           // SERVICE_NOT_AVAILABLE with the disk-full remark
  int refusedNoFile = 0;         // SYSTEM_ERROR "create mapped file failed ..."
  int okAfterRefusal = 0;        // SEND_OK after at least one refusal: writes resumed
  int readsWhileFull = 0;        // pulls answered FOUND right after a refusal
};

// One send of message `i` (8000 bytes unless said otherwise) to topic/0, recorded in `log`.
// Any answer other than SEND_OK or the two full-disk refusals fails the test.
// False (a failed check) when the broker did not answer at all.
bool sendOne(TestClient& c, const std::string& addr, const std::string& topic, int i, SendLog& log,
             size_t size = 8000) {
  auto r = c.call(addr, sendRequest({.topic = topic, .body = bodyFor(i, size), .keys = "k" + std::to_string(i)}));
  if (!r.ok()) {
    FAIL_CHECK("send " << i << ": " << r.error().message);
    return false;
  }
  if (r->code == ResponseCode::SUCCESS) {
    log.acked[extInt(*r, "queueOffset")] = i;
    if (log.refusedFull + log.refusedNoFile > 0) ++log.okAfterRefusal;
    return true;
  }
  std::string remark = r->remark.value_or("");
  if (r->code == ResponseCode::SERVICE_NOT_AVAILABLE) {
    CHECK_MESSAGE(remark.find("service not available now. It may be caused by one of the following reasons: "
                                 "the broker's disk is full [CL: ") == 0,
                  remark);
    ++log.refusedFull;
  } else {
    CHECK_MESSAGE(r->code == ResponseCode::SYSTEM_ERROR, "code " << r->code << ": " << remark);
    CHECK(remark == "create mapped file failed, server is busy or broken.");
    ++log.refusedNoFile;
  }
  // Reads of what is stored keep working while writes are refused.
  int64_t minOff = queueOffset(c, addr, RequestCode::GET_MIN_OFFSET, topic, 0);
  auto p = c.call(addr, pullRequest({.topic = topic, .offset = minOff, .maxMsgNums = 4}));
  if (p.ok() && p->code == ResponseCode::SUCCESS && !pulledMessages(*p).empty()) ++log.readsWhileFull;
  return true;
}

// The broker is alive; if not, how it ended (SIGBUS shows as 135) and what it printed. `grace`:
// how long to wait for an exit first (after a connection was closed under us).
void requireAlive(DevNode& node, std::chrono::milliseconds grace = std::chrono::milliseconds(0)) {
  std::optional<int> code;
  if (grace.count() > 0) code = node.proc.waitExit(grace);
  if (!code && node.proc.running()) return;
  if (!code) code = node.proc.waitExit(std::chrono::seconds(5));
  FAIL("broker died, exit code " << code.value_or(-1) << ": " << node.proc.stderrText());
}

// Every SEND_OK message at or above the queue's current start is pulled back with its own key.
void checkAckedReadable(TestClient& c, const std::string& addr, const std::string& topic, const SendLog& log) {
  // SEND_OK comes before the consume queue has the message (dispatch runs behind, and retries a
  // record the full disk held up): wait until it holds the last acked offset, then read.
  if (!log.acked.empty())
    CHECK_MESSAGE(dispatched(c, addr, topic, 0, log.acked.rbegin()->first + 1),
                  "consume queue max " << maxOffset(c, addr, topic, 0) << ", last acked " << log.acked.rbegin()->first);
  int64_t minOff = queueOffset(c, addr, RequestCode::GET_MIN_OFFSET, topic, 0);
  REQUIRE(minOff >= 0);
  auto got = pullAll(c, addr, topic, 0, minOff);
  int64_t finalMin = queueOffset(c, addr, RequestCode::GET_MIN_OFFSET, topic, 0);
  int checked = 0, missing = 0;
  for (auto& [off, i] : log.acked) {
    if (off < finalMin) continue;  // deleted by retention: legitimately gone
    auto it = got.find(off);
    if (it == got.end() || it->second != "k" + std::to_string(i)) {
      if (++missing <= 5)
        FAIL_CHECK("acked message " << i << " at queue offset " << off << " not pulled back"
                                    << (it == got.end() ? "" : " (found " + it->second + ")"));
      continue;
    }
    ++checked;
  }
  MESSAGE(checked << " acked messages pulled back (" << log.acked.size() << " acked, queue starts at " << finalMin
                  << ")");
  CHECK(missing == 0);
  CHECK(checked > 0);
}

// QUERY_MESSAGE by key (index): how many messages it answers.
size_t queryByKey(TestClient& c, const std::string& addr, const std::string& topic, const std::string& key) {
  auto r = c.call(addr, request(RequestCode::QUERY_MESSAGE, {{"topic", topic}, {"key", key}, {"maxNum", "32"},
                                                             {"beginTimestamp", "0"},
                                                             {"endTimestamp", std::to_string(INT64_MAX)}}));
  return r.ok() && r->code == ResponseCode::SUCCESS ? pulledMessages(*r).size() : 0;
}

bool mountDenied(const TmpfsMount& m) {
  if (m.ok()) return false;
  MESSAGE("skipping: cannot mount a tmpfs here (" << m.error()
                                                  << "); this test needs root / CAP_SYS_ADMIN as on CI");
  return true;
}
}  // namespace

TEST_CASE("disk full (fault point): sends refused with Java's codes, reads served, writes resume by themselves") {
  DevNode node({.extraStore = "mappedFileSizeConsumeQueue = 600\nmaxIndexNum = 64\nmaxHashSlotNum = 16\n"});
  node.replaceConfigLine("mappedFileSizeCommitLog = 67108864", "mappedFileSizeCommitLog = 262144");
  std::string flag = node.proc.path("disk-full.flag");
  node.proc.setEnv("RMQNODE_FAULT_ENOSPC", flag);
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  SendLog log;
  int i = 0;
  for (; i < 20; ++i) REQUIRE(sendOne(c, addr, "FullT", i, log, 1000));
  REQUIRE(log.acked.size() == 20);
  // Dispatch (consume queue, index) of these 20 must be done before the disk "fills": it creates
  // the queue's and the index's first files, which a full disk refuses (dispatch then waits).
  REQUIRE(dispatched(c, addr, "FullT", 0, 20));
  REQUIRE(eventually([&] { return queryByKey(c, addr, "FullT", "k3") == 1; }, std::chrono::seconds(10)));

  node.proc.writeFile("disk-full.flag", "");  // the disk is full from now on
  for (int tries = 0; tries < 2000 && log.refusedFull + log.refusedNoFile < 30; ++tries, ++i)
    REQUIRE(sendOne(c, addr, "FullT", i, log, 1000));
  CHECK(log.refusedFull + log.refusedNoFile >= 30);
  CHECK(log.refusedFull > 0);
  CHECK(log.readsWhileFull > 0);
  CHECK(log.okAfterRefusal == 0);  // nothing goes through while full
  CHECK(queryByKey(c, addr, "FullT", "k3") == 1);  // index queries of stored keys too

  fs::remove(flag);  // space is back
  auto resumed = Clock::now() + std::chrono::seconds(30);
  while (log.okAfterRefusal < 200 && Clock::now() < resumed) REQUIRE(sendOne(c, addr, "FullT", i++, log, 1000));
  CHECK(log.okAfterRefusal >= 200);
  checkAckedReadable(c, addr, "FullT", log);
  requireAlive(node);
  CHECK(node.proc.stop() == 0);
}

TEST_CASE("disk full (48 MB tmpfs): a minute of 8000-byte sends through retention; no crash, nothing acked lost") {
  DevNode node({.extraStore = "flushDiskType = \"ASYNC_FLUSH\"\nmappedFileSizeConsumeQueue = 60000\n"
                      "cleanResourceInterval = 2000\n"});
  node.replaceConfigLine("mappedFileSizeCommitLog = 67108864", "mappedFileSizeCommitLog = 4194304");
  std::string store = node.proc.path("store");
  TmpfsMount mnt(store, "48m");  // declared after the node: unmounted first, whatever happens
  if (mountDenied(mnt)) return;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  SendLog log;
  int i = 0;
  double maxUsed = 0;
  auto until = Clock::now() + std::chrono::seconds(60);
  bool answered = true;
  while (Clock::now() < until && (answered = sendOne(c, addr, "DiskT", i++, log)))
    if (i % 64 == 0) maxUsed = std::max(maxUsed, mnt.usedRatio());
  requireAlive(node, answered ? std::chrono::seconds(0) : std::chrono::seconds(10));
  int64_t maxOff = queueOffset(c, addr, RequestCode::GET_MAX_OFFSET, "DiskT", 0);
  MESSAGE(i << " sends, " << log.acked.size() << " SEND_OK (" << maxOff * 8 / 1000 << " MB through the store), "
            << log.refusedFull << " refused SERVICE_NOT_AVAILABLE, " << log.refusedNoFile
            << " refused SYSTEM_ERROR, max disk use " << static_cast<int>(maxUsed * 100) << "%");
  CHECK(maxOff * 8000 > 2 * 48 * 1024 * 1024);  // retention had to make room, more than once
  if (log.refusedFull + log.refusedNoFile > 0) {
    CHECK(log.okAfterRefusal > 0);  // writes resumed by themselves
    CHECK(log.readsWhileFull > 0);
  }
  // And the store is not left wedged: a send goes through again (retention frees the disk).
  size_t before = log.acked.size();
  auto settle = Clock::now() + std::chrono::seconds(20);
  while (log.acked.size() == before && Clock::now() < settle && sendOne(c, addr, "DiskT", i++, log))
    if (log.acked.size() == before) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_MESSAGE(log.acked.size() > before, "no send accepted in the 20 s after the load stopped");
  // Retention settles (no more sends); every acknowledged message still in the queue comes back.
  checkAckedReadable(c, addr, "DiskT", log);
  requireAlive(node);
  CHECK(node.proc.stop() == 0);
}

TEST_CASE("disk full: a Java-written store on a 99 % full disk starts, serves reads, refuses writes") {
  const std::string tarball = RMQ_SHARED_DIR "/fixtures/rocketmq-4.9.8-store.tar.gz";
  if (!fs::exists(tarball)) {
    MESSAGE("skipping: fixture " << tarball << " not found");
    return;
  }
  DevNode node({.extraStore = "mappedFileSizeConsumeQueue = 20000\nmaxHashSlotNum = 1000\nmaxIndexNum = 4000\n"
                      "cleanResourceInterval = 600000\n"});  // no retention pass during the test
  node.replaceConfigLine("mappedFileSizeCommitLog = 67108864", "mappedFileSizeCommitLog = 262144");
  std::string disk = node.proc.path("disk");
  TmpfsMount mnt(disk, "16m");
  if (mountDenied(mnt)) return;
  std::string cmd = "tar -xzf '" + tarball + "' -C '" + disk + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string store = disk + "/rocketmq-4.9.8-store";
  node.replaceConfigLine("storePathRootDir = \"" + node.proc.path("store") + "\"",
                         "storePathRootDir = \"" + store + "\"");
  fillTo(disk, 0.99);
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;

  int64_t total = 0;
  for (int q = 0; q < 4; ++q) total += static_cast<int64_t>(pullAll(c, addr, "TopicTest", q, 0).size());
  CHECK(total == 1000);  // every message the Java broker wrote
  CHECK(queryByKey(c, addr, "TopicTestjjj", "KEY7") == 1);

  SendLog log;
  for (int i = 0; i < 20; ++i) REQUIRE(sendOne(c, addr, "TopicTest", i, log, 100));
  CHECK(log.acked.empty());
  CHECK(log.refusedFull == 20);
  CHECK(log.readsWhileFull == 20);
  requireAlive(node);
  CHECK(node.proc.stop() == 0);
  // Config files written at shutdown on the full disk are whole (or unchanged), never truncated.
  for (const char* f : {"topics.json", "consumerOffset.json", "subscriptionGroup.json"}) {
    std::string text = readWholeFile(store + "/config/" + f);
    CHECK_MESSAGE(text.size() > 10, f);
    CHECK_MESSAGE(text.find_last_not_of(" \r\n\t") == text.rfind('}'), f);
  }
}
