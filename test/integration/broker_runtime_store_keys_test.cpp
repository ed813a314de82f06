// The store keys Java applies live (UPDATE_BROKER_CONFIG -> its MessageStoreConfig, read at each use)
// reach our running store too (store_config.h isLiveStoreKey): maxMessageSize, syncFlushTimeout,
// fileReservedTime + deleteWhen, observed over the wire without a restart.
#include <doctest/doctest.h>

#include <ctime>
#include <filesystem>
#include <thread>

#include "broker_calls.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::test;
namespace fs = std::filesystem;

namespace {

int updateConfig(TestClient& c, const DevNode& node, const std::string& properties) {
  return invoke(c, node.brokerAddr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, properties)).code;
}

std::string configValue(TestClient& c, const DevNode& node, const std::string& key) {
  auto resp = invoke(c, node.brokerAddr, request(RequestCode::GET_BROKER_CONFIG, {}));
  REQUIRE(resp.code == ResponseCode::SUCCESS);
  auto at = resp.body.find("\n" + key + "=");
  if (at == std::string::npos) return {};
  at += key.size() + 2;
  return resp.body.substr(at, resp.body.find('\n', at) - at);
}

int sendCode(TestClient& c, const DevNode& node, const std::string& topic, size_t bodySize) {
  auto r = c.call(node.brokerAddr, sendRequest({.topic = topic, .body = std::string(bodySize, 'x')}));
  REQUIRE_OK(r);
  return r->code;
}

int64_t commitLogMinOffset(TestClient& c, const DevNode& node) {
  auto info = parseBody(invoke(c, node.brokerAddr, request(RequestCode::GET_BROKER_RUNTIME_INFO, {})));
  return std::stoll(info["table"]["commitLogMinOffset"].GetString());
}

}  // namespace

TEST_CASE("broker live store keys: maxMessageSize lowered refuses a bigger send with MESSAGE_ILLEGAL, raised accepts it") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  createTopic(c, node.brokerAddr, "LiveSizeT", 1);
  CHECK(sendCode(c, node, "LiveSizeT", 2000) == ResponseCode::SUCCESS);

  REQUIRE(updateConfig(c, node, "maxMessageSize=1024\n") == ResponseCode::SUCCESS);
  CHECK(configValue(c, node, "maxMessageSize") == "1024");
  CHECK(sendCode(c, node, "LiveSizeT", 2000) == ResponseCode::MESSAGE_ILLEGAL);
  CHECK(sendCode(c, node, "LiveSizeT", 1000) == ResponseCode::SUCCESS);

  REQUIRE(updateConfig(c, node, "maxMessageSize=4194304\n") == ResponseCode::SUCCESS);
  CHECK(sendCode(c, node, "LiveSizeT", 2000) == ResponseCode::SUCCESS);
}

TEST_CASE("broker live store keys: syncFlushTimeout lowered makes a slow SYNC_FLUSH send answer FLUSH_DISK_TIMEOUT") {
  DevNode node({.extraStore = "flushDiskType = \"SYNC_FLUSH\"\n"});
  std::string slow = node.proc.path("slow.flag");
  node.proc.setEnv("RMQNODE_FAULTS", "slow_disk:1000@" + slow);  // each msync takes 1 s while the flag exists
  REQUIRE(node.start());
  TestClient c;
  createTopic(c, node.brokerAddr, "LiveFlushT", 1);
  node.proc.writeFile("slow.flag", "");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the flag is rechecked every 20 ms

  // syncFlushTimeout 5000 (default) outlasts the 1 s msync.
  CHECK(sendCode(c, node, "LiveFlushT", 100) == ResponseCode::SUCCESS);
  REQUIRE(updateConfig(c, node, "syncFlushTimeout=100\n") == ResponseCode::SUCCESS);
  CHECK(sendCode(c, node, "LiveFlushT", 100) == ResponseCode::FLUSH_DISK_TIMEOUT);
  REQUIRE(updateConfig(c, node, "syncFlushTimeout=5000\n") == ResponseCode::SUCCESS);
  CHECK(sendCode(c, node, "LiveFlushT", 100) == ResponseCode::SUCCESS);
  fs::remove(slow);
}

TEST_CASE("broker live store keys: fileReservedTime and deleteWhen changed at run time expire commit log files") {
  DevNode node({.extraStore = "cleanResourceInterval = 1000\n"});
  node.replaceConfigLine("mappedFileSizeCommitLog = 67108864", "mappedFileSizeCommitLog = 65536");
  REQUIRE(node.start());
  TestClient c;
  createTopic(c, node.brokerAddr, "LiveRetentionT", 1);
  for (int i = 0; i < 80; ++i) REQUIRE(sendCode(c, node, "LiveRetentionT", 2000) == ResponseCode::SUCCESS);
  REQUIRE(dispatched(c, node.brokerAddr, "LiveRetentionT", 0, 80));
  CHECK(commitLogMinOffset(c, node) == 0);

  // deleteWhen = this hour and the next (local time, as the broker reads it): a string key Java
  // also applies live.
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::string hours = std::to_string(local.tm_hour) + ";" + std::to_string((local.tm_hour + 1) % 24);
  REQUIRE(updateConfig(c, node, "fileReservedTime=0\ndeleteWhen=" + hours + "\n") == ResponseCode::SUCCESS);
  CHECK(configValue(c, node, "deleteWhen") == hours);
  CHECK(eventually([&] { return commitLogMinOffset(c, node) > 0; }, std::chrono::seconds(20)));
  CHECK(node.brokerLog().find("deleting expired file") != std::string::npos);
}

TEST_CASE("broker live store keys: a path key is still refused at run time") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto resp = invoke(c, node.brokerAddr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, "storePathCommitLog=/tmp/x\n"));
  CHECK(resp.code == ResponseCode::SYSTEM_ERROR);
  CHECK(resp.remark.value_or("").find("storePathCommitLog") != std::string::npos);
}
