// Real master and slave stores in temp dirs, replicating over loopback through HaMaster/HaClient;
// fake peers (raw sockets) speak the wire protocol where a test needs a misbehaving side.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <asio/connect.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/use_future.hpp>
#include <asio/write.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "common/bytes.h"
#include "repl/ha_client.h"
#include "repl/ha_master.h"
#include "repl/ha_protocol.h"
#include "store/mapped_file.h"
#include "tmpfs_mount.h"
#include "unit/repl/ha_test_util.h"

using namespace rmq;
using namespace rmq::store;
using namespace rmq::store::test;
using namespace rmq::repl;
using namespace rmq::repl::test;
using asio::ip::tcp;

TEST_CASE("slave follows the master across several commit log files: identical bytes, queues, index") {
  Master m;
  m.start();
  appendN(m.store, 0, 50);
  TempDir sdir;
  Slave s(sdir.path, m.ha.port());
  s.start();
  // (An empty slave starts at the master's last file as of its first report: let it start in file 0.)
  REQUIRE(waitUntil([&] { return caughtUp(m.store, *s.store); }));
  appendN(m.store, 50, 700);  // ~250 KB: four more 64 KiB files while the slave streams
  REQUIRE(m.store.maxPhyOffset() > 3 * kFile);
  REQUIRE(waitUntil([&] { return caughtUp(m.store, *s.store); }));
  CHECK(s.client->connected());
  CHECK(m.ha.connectionCount() == 1);
  checkSameBytes(m.store, *s.store, 0);
  for (int q = 0; q < 3; ++q) CHECK(s.store->maxOffsetInQueue("HA", q) == m.store.maxOffsetInQueue("HA", q));
  auto got = s.store->getMessages("HA", 1, 100, 8, 1 << 30, nullptr);
  auto want = m.store.getMessages("HA", 1, 100, 8, 1 << 30, nullptr);
  REQUIRE(got.records.size() == 8);
  for (size_t i = 0; i < got.records.size(); ++i) CHECK(got.records[i] == want.records[i]);
  CHECK(s.store->queryMessage("HA", "k749", 32, 0, INT64_MAX).records.size() == 1);
  // The master saw the slave's acks for everything.
  REQUIRE(waitUntil([&] { return m.store.slaveAckedOffset() == m.store.maxPhyOffset(); }));
  CHECK(m.ha.slaveFallBehind() == 0);
  auto info = m.ha.slaves();
  REQUIRE(info.size() == 1);
  CHECK(info[0].requestOffset == 0);
  CHECK(info[0].ackOffset == m.store.maxPhyOffset());
  CHECK(s.client->refusedStreams() == 0);

  // On disk: every slave commit log file equals the master's file of the same name.
  std::string slaveLog = s.cfg.commitLogDir(), masterLog = m.cfg.commitLogDir();
  s.stop();
  m.ha.stop();
  m.store.shutdown();
  int compared = 0;
  for (auto& e : std::filesystem::directory_iterator(slaveLog)) {
    auto name = e.path().filename();
    if (!std::filesystem::exists(masterLog + "/" + name.string())) continue;  // preallocated next file
    CHECK(fileBytes(e.path()) == fileBytes(masterLog + "/" + name.string()));
    ++compared;
  }
  CHECK(compared >= 4);
}

namespace {
// Where the END-of-file blank marker of a full commit log file starts (-1 if none).
int64_t blankMarkerAt(const std::string& file) {
  std::string b = fileBytes(file);
  for (size_t pos = 0; pos + 8 <= b.size();) {
    auto size = static_cast<int32_t>(loadBE32(b.data() + pos));
    if (static_cast<int32_t>(loadBE32(b.data() + pos + 4)) == kBlankMagic) return static_cast<int64_t>(pos);
    if (size <= 0) return -1;
    pos += static_cast<size_t>(size);
  }
  return -1;
}
// Punches [from, end of file) as the Java broker leaves it (never reserved, never written).
bool punchFrom(const std::string& file, int64_t from) {
  int fd = ::open(file.c_str(), O_RDWR);
  if (fd < 0) return false;
  bool ok = ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, from, kFile - from) == 0;
  ::close(fd);
  return ok;
}
int64_t firstHole(const std::string& file) {
  int fd = ::open(file.c_str(), O_RDONLY);
  if (fd < 0) return -1;
  off_t hole = ::lseek(fd, 0, SEEK_HOLE);
  ::close(fd);
  return hole;
}
}  // namespace

TEST_CASE("a Java-style store sparse past its blank markers: the master streams the holes without a read fault; "
          "slave files byte-identical") {
  TempDir mdir;
  rmq::test::TmpfsMount mnt(mdir.path + "/fs", "8m");  // a read fault on a tmpfs hole allocates a page
  std::string root = mnt.ok() ? mnt.dir() + "/store" : mdir.path + "/store";
  if (!mnt.ok()) MESSAGE("no tmpfs here (" << mnt.error() << "): holes are checked on the plain file system");
  auto cfg = masterConfig(root);
  TempDir sdir;
  Slave s(sdir.path, 0);
  std::vector<std::string> punched;
  std::vector<int64_t> holeAt;
  int64_t end = 0;
  {
    MessageStore store(cfg, testStoreHost());
    HaMaster ha(store, cfg);
    REQUIRE(store.open().ok());
    REQUIRE(ha.start("127.0.0.1", 0).ok());
    store.start();
    appendN(store, 0, 1, 25000);  // the slave starts in file 0 and stops there
    s.cfg.haMasterAddress = "127.0.0.1:" + std::to_string(ha.port());
    s.start();
    REQUIRE(waitUntil([&] { return caughtUp(store, *s.store); }));
    s.stop();
    appendN(store, 1, 6, 25000);  // two 25 KB records per 64 KiB file, then a blank marker: 3 full files
    REQUIRE(store.maxPhyOffset() > 3 * kFile);
    end = store.maxPhyOffset();
    ha.stop();
    store.shutdown();
  }
  // As the Java broker leaves them: full files sparse from the page after their blank marker, the
  // last one from the page after its data.
  for (int64_t from = 0; from < 3 * kFile; from += kFile) {
    std::string file = cfg.commitLogDir() + "/" + MappedFile::fileName(from);
    int64_t blank = blankMarkerAt(file);
    REQUIRE(blank > 0);
    int64_t hole = (blank + 8 + 4095) / 4096 * 4096;
    REQUIRE(hole < kFile);
    REQUIRE(punchFrom(file, hole));
    punched.push_back(file);
    holeAt.push_back(hole);
  }
  REQUIRE(punchFrom(cfg.commitLogDir() + "/" + MappedFile::fileName(3 * kFile), (end - 3 * kFile + 4095) / 4096 * 4096));
  MessageStore store(cfg, testStoreHost());
  HaMaster ha(store, cfg);
  REQUIRE(store.open().ok());
  REQUIRE(ha.start("127.0.0.1", 0).ok());
  store.start();
  // The master continues its last file past where its data ended at load: readable, streamed.
  appendN(store, 7, 3, 5000);
  TestMessage t("HA", 0, bodyOf(10, 5000), "T0", "k10");
  auto r = store.append(t.m);
  REQUIRE(r.ok());
  CHECK(store.lookMessageByOffset(r.physicalOffset));  // past the load-time first hole of its file

  s.cfg.haMasterAddress = "127.0.0.1:" + std::to_string(ha.port());
  s.start();  // resumes inside file 0: the master streams file 0's hole and the files after it
  REQUIRE(waitUntil([&] { return caughtUp(store, *s.store); }));
  CHECK(s.client->refusedStreams() == 0);
  checkSameBytes(store, *s.store, 0);
  CHECK(s.store->queryMessage("HA", "k10", 32, 0, INT64_MAX).records.size() == 1);
  for (size_t i = 0; i < punched.size(); ++i) {
    INFO(punched[i]);
    CHECK(firstHole(punched[i]) == holeAt[i]);  // never faulted in through the mapping
  }
  std::string slaveLog = s.cfg.commitLogDir();
  s.stop();
  ha.stop();
  store.shutdown();
  for (int64_t from = 0; from <= 3 * kFile; from += kFile) {
    std::string name = MappedFile::fileName(from);
    INFO(name);
    CHECK(fileBytes(slaveLog + "/" + name) == fileBytes(cfg.commitLogDir() + "/" + name));
  }
}

TEST_CASE("an empty slave starts at the master's last file; a restarted slave resumes from its own end") {
  Master m;
  m.start();
  appendN(m.store, 0, 700);  // several files before any slave exists
  int64_t lastFileStart = m.store.maxPhyOffset() - m.store.maxPhyOffset() % kFile;
  REQUIRE(lastFileStart >= 3 * kFile);
  TempDir sdir;
  Slave s(sdir.path, m.ha.port());
  s.start();
  REQUIRE(waitUntil([&] { return caughtUp(m.store, *s.store); }));
  CHECK(s.store->minPhyOffset() == lastFileStart);  // Java: report 0 = from the last file's start
  checkSameBytes(m.store, *s.store, lastFileStart);
  // A message of the last file can be read by key on the slave.
  CHECK(s.store->queryMessage("HA", "k699", 32, 0, INT64_MAX).records.size() == 1);

  s.stop();
  int64_t before = m.store.maxPhyOffset();
  appendN(m.store, 700, 500);  // two more files while the slave is down
  s.start();
  REQUIRE(waitUntil([&] { return caughtUp(m.store, *s.store); }));
  checkSameBytes(m.store, *s.store, lastFileStart);
  auto info = m.ha.slaves();
  REQUIRE(info.size() == 1);
  CHECK(info[0].requestOffset == before);  // resumed from its own end
  CHECK(s.client->refusedStreams() == 0);
  for (int q = 0; q < 3; ++q) CHECK(s.store->maxOffsetInQueue("HA", q) == m.store.maxOffsetInQueue("HA", q));
}

// Issue 23: woken after every replicated batch, the slave's flusher ran an msync per 16 KiB
// received (a fifth of the slave's CPU under SYNC_MASTER load). Like a master, and like Java's
// appendToCommitLog, a slave now flushes on flushIntervalCommitLog only.
TEST_CASE("a slave flushes its commit log on flushIntervalCommitLog, not after each replicated batch") {
  Master m;
  m.start();
  TempDir sdir;
  Slave s(sdir.path, m.ha.port());
  s.cfg.flushIntervalCommitLog = 600000;  // no interval flush while the test runs
  s.start();
  appendN(m.store, 0, 100);  // ~45 KB in one file: well past flushCommitLogLeastPages (16 KiB)
  REQUIRE(waitUntil([&] { return caughtUp(m.store, *s.store); }));
  // The old wake-up flushed within milliseconds of the batch; give it far more than that.
  auto flushedAll = [&] { return s.store->flushedPhyOffset() == s.store->maxPhyOffset(); };
  CHECK_FALSE(waitUntil(flushedAll, std::chrono::milliseconds(500)));
  CHECK(s.store->flushedPhyOffset() < 16 * 1024);
  int64_t end = s.store->maxPhyOffset();
  s.stop();  // a clean shutdown flushes everything: the bytes are on disk and reload
  s.start();
  CHECK(s.store->maxPhyOffset() == end);
}

TEST_CASE("slave refuses a frame that does not continue its commit log, appends nothing, reconnects") {
  // Seed the slave with real bytes from a scratch master store.
  TempDir mdir;
  MessageStore src(smallConfig(mdir.path), testStoreHost());
  REQUIRE(src.open().ok());
  src.start();
  appendN(src, 0, 20);
  asio::io_context io;
  tcp::acceptor fake(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  TempDir sdir;
  Slave s(sdir.path, fake.local_endpoint().port());
  s.cfg.haHousekeepingInterval = 60000;
  s.store = std::make_unique<MessageStore>(s.cfg, testStoreHost());
  REQUIRE(s.store->open().ok());
  s.store->start();
  auto seed = src.readCommitLog(0, 1 << 20);
  REQUIRE(s.store->appendReplicated(0, seed.bytes).ok());
  int64_t end = s.store->maxPhyOffset();
  s.client = std::make_unique<HaClient>(*s.store, s.cfg);
  s.client->start();

  tcp::socket conn(io);
  fake.accept(conn);
  CHECK(readLong(conn) == end);  // first report at once: the slave's end
  std::string body(100, 'x');
  auto hdr = encodeFrameHeader(end + 64, static_cast<int32_t>(body.size()));  // a gap
  asio::write(conn, asio::buffer(hdr));
  asio::write(conn, asio::buffer(body));
  REQUIRE(waitUntil([&] { return s.client->refusedStreams() == 1; }));
  CHECK(s.store->maxPhyOffset() == end);
  // The slave closed the connection and comes back asking for the same offset.
  asio::error_code ec;
  char c;
  conn.read_some(asio::buffer(&c, 1), ec);
  CHECK(ec);
  tcp::socket again(io);
  fake.accept(again);
  CHECK(readLong(again) == end);
  // A continuing frame is accepted.
  auto more = src.readCommitLog(end, 1 << 20);
  CHECK(more.bytes.empty());  // src has nothing beyond: use fresh bytes from a new append
  appendN(src, 20, 1);
  more = src.readCommitLog(end, 1 << 20);
  REQUIRE(more);
  auto ok = encodeFrameHeader(end, static_cast<int32_t>(more.bytes.size()));
  asio::write(again, asio::buffer(ok));
  asio::write(again, asio::buffer(more.bytes.data(), more.bytes.size()));
  REQUIRE(waitUntil([&] { return s.store->maxPhyOffset() == src.maxPhyOffset(); }));
  // ...and acknowledged by a report of the new end.
  int64_t r = 0;
  for (int i = 0; i < 20 && r != src.maxPhyOffset(); ++i) r = readLong(again);
  CHECK(r == src.maxPhyOffset());
  s.stop();
  src.shutdown();
}

TEST_CASE("SYNC_MASTER: SLAVE_NOT_AVAILABLE without a slave, PUT_OK once a slave acked") {
  Master m([](StoreConfig& c) { c.brokerRole = "SYNC_MASTER"; });
  m.start();
  appendN(m.store, 0, 5);
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::SLAVE_NOT_AVAILABLE));
  TempDir sdir;
  Slave s(sdir.path, m.ha.port());
  s.start();
  REQUIRE(waitUntil([&] { return m.ha.connectionCount() == 1; }));
  // Pipelined waiters: many sends in flight complete as the slave acks.
  std::vector<std::future<PutStatus>> waits;
  for (int i = 0; i < 50; ++i) {
    appendN(m.store, 5 + i, 1);
    waits.push_back(m.store.asyncWaitReplicated(m.store.maxPhyOffset(), asio::use_future));
  }
  for (auto& w : waits) {
    REQUIRE(w.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
    CHECK((w.get() == PutStatus::PUT_OK));
  }
  CHECK(s.store->maxPhyOffset() >= m.store.maxPhyOffset());
  // The slave goes away: back to SLAVE_NOT_AVAILABLE.
  s.stop();
  REQUIRE(waitUntil([&] { return m.ha.connectionCount() == 0; }));
  appendN(m.store, 100, 1);
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::SLAVE_NOT_AVAILABLE));
}

TEST_CASE("SYNC_MASTER: FLUSH_SLAVE_TIMEOUT when the slave stops acking; SLAVE_NOT_AVAILABLE when too far behind") {
  Master m([](StoreConfig& c) {
    c.brokerRole = "SYNC_MASTER";
    c.syncFlushTimeout = 500;
    c.haSlaveFallbehindMax = 20000;
  });
  m.start();
  appendN(m.store, 0, 10);
  asio::io_context io;
  tcp::socket hung(io);
  hung.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), m.ha.port()));
  writeReport(hung, m.store.maxPhyOffset());  // caught up once, then never acks again
  REQUIRE(waitUntil([&] { return m.store.slaveAckedOffset() == m.store.maxPhyOffset(); }));
  appendN(m.store, 10, 1);
  auto t0 = std::chrono::steady_clock::now();
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::FLUSH_SLAVE_TIMEOUT));
  CHECK(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(400));
  appendN(m.store, 11, 100);  // now > haSlaveFallbehindMax beyond the last ack
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::SLAVE_NOT_AVAILABLE));
  // An ack brings it back.
  writeReport(hung, m.store.maxPhyOffset());
  REQUIRE(waitUntil([&] { return m.store.slaveAckedOffset() == m.store.maxPhyOffset(); }));
  CHECK((waitReplicated(m.store, m.store.maxPhyOffset()) == PutStatus::PUT_OK));
}

TEST_CASE("master: nothing before the first report, heartbeats when idle, silent slave dropped") {
  Master m([](StoreConfig& c) {
    c.haSendHeartbeatInterval = 100;
    c.haHousekeepingInterval = 1500;
  });
  m.start();
  appendN(m.store, 0, 3);
  int64_t end = m.store.maxPhyOffset();
  asio::io_context io;
  tcp::socket slave(io);
  slave.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), m.ha.port()));
  REQUIRE(waitUntil([&] { return m.ha.connectionCount() == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(slave.available() == 0);  // the master waits for the slave's first report
  writeReport(slave, end);        // already has everything
  // Idle: heartbeat frames at the slave's offset, no body.
  for (int i = 0; i < 2; ++i) {
    CHECK(readLong(slave) == end);
    char size[4];
    asio::read(slave, asio::buffer(size));
    CHECK(loadBE32(size) == 0);
  }
  // New data is pushed without waiting for the heartbeat period.
  appendN(m.store, 3, 1);
  int64_t off = 0;
  uint32_t n = 0;
  for (int i = 0; i < 50 && n == 0; ++i) {
    off = readLong(slave);
    char size[4];
    asio::read(slave, asio::buffer(size));
    n = loadBE32(size);
  }
  CHECK(off == end);
  CHECK(n == m.store.maxPhyOffset() - end);
  // Silence (no reports) for haHousekeepingInterval: the master drops the slave.
  REQUIRE(waitUntil([&] { return m.ha.connectionCount() == 0; }));
  asio::error_code ec;
  std::vector<char> sink(1 << 16);
  for (int i = 0; i < 1000 && !ec; ++i) slave.read_some(asio::buffer(sink), ec);
  CHECK(ec);
}
