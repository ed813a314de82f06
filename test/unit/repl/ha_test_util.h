#pragma once
// Shared helpers of the replication unit tests: a master (store + HaMaster on an ephemeral
// loopback port) and a slave (store + HaClient) in temp dirs, waits and comparisons.
#include <doctest/doctest.h>

#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/use_future.hpp>
#include <asio/write.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "repl/ha_client.h"
#include "repl/ha_master.h"
#include "repl/ha_protocol.h"
#include "common/bytes.h"
#include "unit/store/store_test_util.h"

namespace rmq::repl::test {

using namespace rmq::store;
using namespace rmq::store::test;

inline constexpr int kFile = 64 * 1024;  // smallConfig's commit log file size

inline bool waitUntil(const std::function<bool()>& done, std::chrono::milliseconds limit = std::chrono::seconds(30)) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

inline StoreConfig masterConfig(const std::string& dir, const std::string& role = "ASYNC_MASTER") {
  auto c = smallConfig(dir);
  c.brokerRole = role;
  c.haSendHeartbeatInterval = 200;
  return c;
}

inline StoreConfig slaveConfig(const std::string& dir, uint16_t masterHaPort) {
  auto c = smallConfig(dir);
  c.brokerRole = "SLAVE";
  c.haSendHeartbeatInterval = 200;
  c.haMasterAddress = "127.0.0.1:" + std::to_string(masterHaPort);
  return c;
}

// A master: store + HA service on an ephemeral loopback port.
struct Master {
  TempDir dir;
  StoreConfig cfg;
  MessageStore store;
  HaMaster ha;
  explicit Master(const std::function<void(StoreConfig&)>& tweak = nullptr)
      : cfg(configFor(dir.path, tweak)), store(cfg, testStoreHost()), ha(store, cfg) {}
  static StoreConfig configFor(const std::string& path, const std::function<void(StoreConfig&)>& tweak) {
    auto c = masterConfig(path);
    if (tweak) tweak(c);
    return c;
  }
  void start() {
    REQUIRE(store.open().ok());
    REQUIRE(ha.start("127.0.0.1", 0).ok());
    store.start();
  }
  ~Master() {
    ha.stop();
    store.shutdown();
  }
};

struct Slave {
  std::string root;
  StoreConfig cfg;
  std::unique_ptr<MessageStore> store;
  std::unique_ptr<HaClient> client;
  Slave(const std::string& dir, uint16_t port) : root(dir), cfg(slaveConfig(dir, port)) {}
  void start() {
    store = std::make_unique<MessageStore>(cfg, testStoreHost());
    REQUIRE(store->open().ok());
    store->start();
    client = std::make_unique<HaClient>(*store, cfg);
    client->start();
  }
  void stop() {
    if (client) client->stop();
    if (store) store->shutdown();
    client.reset();
    store.reset();
  }
  ~Slave() { stop(); }
};

inline void appendN(MessageStore& s, int from, int n, size_t bodySize = 300) {
  for (int i = from; i < from + n; ++i) {
    TestMessage t("HA", i % 3, bodyOf(i, bodySize), "T" + std::to_string(i % 2), "k" + std::to_string(i));
    REQUIRE(s.append(t.m).ok());
  }
}

inline bool caughtUp(const MessageStore& m, const MessageStore& s) {
  return s.maxPhyOffset() == m.maxPhyOffset() && s.dispatchedPhyOffset() == s.maxPhyOffset() &&
         m.dispatchedPhyOffset() == m.maxPhyOffset();
}

// Compares the commit logs' bytes from `from` to their (equal) ends.
inline void checkSameBytes(const MessageStore& m, const MessageStore& s, int64_t from) {
  REQUIRE(m.maxPhyOffset() == s.maxPhyOffset());
  int64_t off = from;
  while (off < m.maxPhyOffset()) {
    auto a = m.readCommitLog(off, 1 << 20);
    auto b = s.readCommitLog(off, 1 << 20);
    INFO("offset ", off, " master min ", m.minPhyOffset(), " slave min ", s.minPhyOffset());
    REQUIRE(a);
    REQUIRE(b);
    size_t n = std::min(a.bytes.size(), b.bytes.size());  // a read also stops at a file's first hole
    REQUIRE(a.bytes.substr(0, n) == b.bytes.substr(0, n));
    off += static_cast<int64_t>(n);
  }
}

inline std::string fileBytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline PutStatus waitReplicated(MessageStore& s, int64_t end) {
  auto f = s.asyncWaitReplicated(end, asio::use_future);
  REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  return f.get();
}

// A fake slave's side of the wire (raw sockets): the next 8-byte big-endian value the master sent,
// and one report.
inline int64_t readLong(asio::ip::tcp::socket& s) {
  char b[8];
  asio::read(s, asio::buffer(b));
  return static_cast<int64_t>(loadBE64(b));
}

inline void writeReport(asio::ip::tcp::socket& s, int64_t offset) {
  auto r = encodeReport(offset);
  asio::write(s, asio::buffer(r));
}

// True when the master closes `s` within `limit` (whatever it sent before is read and dropped);
// false when it is still open then.
inline bool closedWithin(asio::ip::tcp::socket& s, std::chrono::milliseconds limit) {
  std::vector<char> sink(1 << 16);
  s.non_blocking(true);  // read_some answers would_block instead of waiting
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    asio::error_code ec;
    s.read_some(asio::buffer(sink), ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    if (ec) return true;  // EOF or reset
  }
  return false;
}

}  // namespace rmq::repl::test
