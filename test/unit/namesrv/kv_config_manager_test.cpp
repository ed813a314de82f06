#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "roles/namesrv/kv_config_manager.h"

using namespace rmq::namesrv;

TEST_CASE("KV config persists in Java's shape and survives a reload") {
  auto dir = std::filesystem::temp_directory_path() / ("rmq_kv_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  auto path = (dir / "sub" / "kvConfig.json").string();
  {
    KvConfigManager kv(path);
    REQUIRE(kv.load());
    CHECK_FALSE(kv.kvListJson("ns"));
    REQUIRE(kv.put("ORDER_TOPIC_CONFIG", "T", "broker-a:4"));
    REQUIRE(kv.put("ns", "k", "v \"quoted\""));
    REQUIRE(kv.put("ns", "gone", "x"));
    REQUIRE(kv.remove("ns", "gone"));
  }
  std::stringstream ss;
  ss << std::ifstream(path).rdbuf();
  CHECK(ss.str() == "{\"configTable\":{\"ORDER_TOPIC_CONFIG\":{\"T\":\"broker-a:4\"},\"ns\":{\"k\":\"v \\\"quoted\\\"\"}}}");
  KvConfigManager again(path);
  REQUIRE(again.load());
  CHECK(again.get("ns", "k") == "v \"quoted\"");
  CHECK_FALSE(again.get("ns", "gone"));
  CHECK(again.kvListJson("ORDER_TOPIC_CONFIG") == "{\"table\":{\"T\":\"broker-a:4\"}}");

  std::ofstream(path) << "{garbage";
  KvConfigManager broken(path);
  auto r = broken.load();
  REQUIRE_FALSE(r);
  CHECK(r.error().message.find(path) != std::string::npos);
  std::filesystem::remove_all(dir);
}
