// A damaged store under a real broker: stopped, its files damaged on disk (garbage over a consume
// queue's tail, the index files gone), started again. The restarted broker serves exactly the
// acknowledged messages in queue order and finds every key — rebuilt from the commit log.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "broker_calls.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;
namespace fs = std::filesystem;

namespace {
size_t queryByKey(TestClient& c, const std::string& addr, const std::string& topic, const std::string& key) {
  auto r = c.call(addr, request(RequestCode::QUERY_MESSAGE, {{"topic", topic}, {"key", key}, {"maxNum", "32"},
                                                             {"beginTimestamp", "0"},
                                                             {"endTimestamp", std::to_string(INT64_MAX)}}));
  return r.ok() && r->code == ResponseCode::SUCCESS ? pulledMessages(*r).size() : 0;
}
}  // namespace

TEST_CASE("damaged store (real broker restart): garbage over a consume queue's tail and no index files — "
          "rebuilt from the commit log, every acknowledged message served once, in order, found by key") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  const int n = 40;
  for (int i = 0; i < n; ++i)
    sendOk(c, addr, {.topic = "DmgT", .body = "body-" + std::to_string(i), .keys = "k" + std::to_string(i)});
  REQUIRE(dispatched(c, addr, "DmgT", 0, n));
  REQUIRE(node.proc.stop() == 0);

  std::string store = node.proc.path("store");
  std::string cq = store + "/consumequeue/DmgT/0/00000000000000000000";
  REQUIRE(fs::exists(cq));
  int fd = ::open(cq.c_str(), O_RDWR);
  REQUIRE(fd >= 0);
  std::string garbage(20 * 15, '\0');
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<char>(0x3C ^ (i * 29));
  REQUIRE(::pwrite(fd, garbage.data(), garbage.size(), 20 * 25) == static_cast<ssize_t>(garbage.size()));
  ::close(fd);
  fs::remove_all(store + "/index");

  REQUIRE(node.restart());
  REQUIRE(dispatched(c, addr, "DmgT", 0, n));
  CHECK(maxOffset(c, addr, "DmgT", 0) == n);
  int64_t off = 0;
  for (int loops = 0; loops < 100 && off < n; ++loops) {
    auto msgs = pullMessages(c, addr, {.topic = "DmgT", .offset = off});
    REQUIRE_FALSE(msgs.empty());
    for (auto& m : msgs) {
      CHECK(m.queueOffset == off);
      CHECK(m.keys() == "k" + std::to_string(off));
      ++off;
    }
  }
  CHECK(off == n);
  for (int i = 0; i < n; ++i) CHECK_MESSAGE(queryByKey(c, addr, "DmgT", "k" + std::to_string(i)) == 1, "k" << i);
  CHECK(node.brokerLog().find("consume queue DmgT/0: damaged unit 25") != std::string::npos);
  CHECK(node.proc.stop() == 0);
}
