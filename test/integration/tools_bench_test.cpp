// rmqbench smoke runs: echo (no node), producer, consumer and pop-consumer (gRPC) against a real
// rmqnode, checking the SUMMARY lines (text and --json) against what the node stored.
#include <doctest/doctest.h>

#include <regex>

#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::test::tools;

namespace {

// Parses "SUMMARY <op>: ok N failed M ..." from text output.
std::pair<int64_t, int64_t> summaryCounts(const std::string& out, const std::string& op) {
  std::smatch m;
  std::regex re("SUMMARY " + op + ": ok (\\d+) failed (\\d+) in [0-9.]+ s, TPS [0-9]+");
  REQUIRE_MESSAGE(std::regex_search(out, m, re), ("no SUMMARY line in:\n" + out));
  return {std::stoll(m[1]), std::stoll(m[2])};
}

rapidjson::Document lastJsonLine(const std::string& out) {
  auto end = out.find_last_not_of('\n');
  REQUIRE(end != std::string::npos);
  auto begin = out.rfind('\n', end);
  std::string line = out.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin == std::string::npos ? 0 : begin + 1));
  rapidjson::Document doc;
  REQUIRE_MESSAGE(json::parse(line, doc).ok(), ("not JSON: " + line));
  return doc;
}

}  // namespace

TEST_CASE("rmqbench echo: loopback run prints per-second lines and a summary") {
  auto r = runTool(RMQBENCH_BIN, {"echo", "-d", "1.5", "-t", "4", "--connections", "2", "-s", "512"});
  REQUIRE_MESSAGE(r.exitCode == 0, (describe(r)));
  CHECK(r.out.find("[   1s] echo TPS ") != std::string::npos);
  auto [ok, failed] = summaryCounts(r.out, "echo");
  CHECK(ok > 0);
  CHECK(failed == 0);

  auto j = runTool(RMQBENCH_BIN, {"echo", "-c", "300", "-t", "3", "--json"});
  REQUIRE_MESSAGE(j.exitCode == 0, (describe(j)));
  auto doc = lastJsonLine(j.out);
  CHECK(std::string(doc["type"].GetString()) == "summary");
  CHECK(doc["ok"].GetInt64() == 300);  // exactly the requested count
  CHECK(doc["failed"].GetInt64() == 0);
  CHECK(doc["rtt"]["count"].GetInt64() == 300);
  CHECK(doc["rtt"]["p50_ms"].GetDouble() <= doc["rtt"]["max_ms"].GetDouble());

  auto bad = runTool(RMQBENCH_BIN, {"echo", "-t", "0"});
  CHECK(bad.exitCode == 2);
  CHECK(runTool(RMQBENCH_BIN, {"nosuch"}).exitCode == 2);
}

TEST_CASE("rmqbench producer and consumer against rmqnode: counts match what the node stored") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("BenchTopic");
  REQUIRE(node.createTopic(topic, 4));

  auto p = runTool(RMQBENCH_BIN, {"producer", "-n", node.namesrvAddr, "--topic", topic, "-t", "4", "-s", "256", "-c",
                                  "400", "--keys"}, std::chrono::seconds(60));
  REQUIRE_MESSAGE(p.exitCode == 0, (describe(p)));
  auto [sentOk, sentFailed] = summaryCounts(p.out, "send");
  CHECK(sentOk == 400);
  CHECK(sentFailed == 0);

  auto a = runTool(RMQBENCH_BIN, {"producer", "-n", node.namesrvAddr, "--topic", topic, "-t", "2", "-c", "100",
                                  "--async", "--json"}, std::chrono::seconds(60));
  REQUIRE_MESSAGE(a.exitCode == 0, (describe(a)));
  auto asyncDoc = lastJsonLine(a.out);
  CHECK(asyncDoc["ok"].GetInt64() == 100);
  CHECK(std::string(asyncDoc["mode"].GetString()) == "async");

  auto b = runTool(RMQBENCH_BIN, {"producer", "-n", node.namesrvAddr, "--topic", topic, "-c", "10", "--batch", "5"},
                   std::chrono::seconds(60));
  REQUIRE_MESSAGE(b.exitCode == 0, (describe(b)));
  CHECK(summaryCounts(b.out, "send").first == 50);

  // Stored: 400 + 100 + 50 plus one warm-up send per run.
  const int64_t stored = 400 + 100 + 50 + 3;
  int64_t total = 0;
  CHECK(eventually([&] {  // consume queues are written by the store's dispatch, just after the sends
    auto status = adminJson(node, "topicStatus", {"-t", topic});
    total = 0;
    for (auto& row : rows(status, "queues").GetArray()) total += num(row, "#Max Offset");
    return total == stored;
  }, std::chrono::seconds(10)));
  CHECK(total == stored);

  auto c = runTool(RMQBENCH_BIN, {"consumer", "-n", node.namesrvAddr, "--topic", topic, "--group", uniqueName("BenchCG"),
                                  "--from", "first", "-c", std::to_string(stored), "-d", "40", "--json"},
                   std::chrono::seconds(60));
  REQUIRE_MESSAGE(c.exitCode == 0, (describe(c)));
  auto doc = lastJsonLine(c.out);
  CHECK(doc["ok"].GetInt64() >= stored);
  CHECK(doc["failed"].GetInt64() == 0);
  CHECK(doc["store"]["count"].GetInt64() >= stored);
  // Every message is born before it is stored: born-to-consume dominates store-to-consume.
  CHECK(doc["born"]["p50_ms"].GetDouble() >= doc["store"]["p50_ms"].GetDouble());
  CHECK(doc["born"]["max_ms"].GetDouble() >= doc["store"]["max_ms"].GetDouble());

  auto noNamesrv = runTool(RMQBENCH_BIN, {"producer", "-n", "127.0.0.1:" + std::to_string(freePort()), "--topic", topic,
                                          "-c", "1"}, std::chrono::seconds(30));
  CHECK(noNamesrv.exitCode == 1);
  CHECK(!noNamesrv.err.empty());
}

TEST_CASE("rmqbench pop-consumer over gRPC: every message received and acked once; the un-acked ones come back") {
  DevNode node({.grpc = true});
  REQUIRE(node.start());
  std::string topic = uniqueName("BenchPop");
  REQUIRE(node.createTopic(topic, 4));
  auto p = runTool(RMQBENCH_BIN, {"producer", "-n", node.namesrvAddr, "--topic", topic, "-t", "4", "-s", "256", "-c",
                                  "300"}, std::chrono::seconds(60));
  REQUIRE_MESSAGE(p.exitCode == 0, (describe(p)));
  const int64_t stored = 300 + 1;  // and the producer's warm-up send
  // Every 10th first delivery is left un-acked: 30 come back after their 1 s invisible time.
  auto c = runTool(RMQBENCH_BIN, {"pop-consumer", "--endpoint", "127.0.0.1:" + std::to_string(node.grpcPort),
                                  "--topic", topic, "--group", uniqueName("GID_bench_pop"), "-t", "4", "--connections",
                                  "2", "--batch", "16", "--invisible", "1000", "--poll", "500", "--no-ack-every", "10",
                                  "-d", "5"},
                   std::chrono::seconds(60));
  REQUIRE_MESSAGE(c.exitCode == 0, (describe(c)));
  auto [acked, failed] = summaryCounts(c.out, "receive\\+ack");
  CHECK(acked == stored);
  CHECK(failed == 0);
  CHECK_MESSAGE(c.out.find("left un-acked 30, redelivered 30 (measured 30, still invisible at the end 0)") !=
                    std::string::npos,
                c.out);
  CHECK_MESSAGE(c.out.find("early 0; receive errors 0, ack errors 0") != std::string::npos, c.out);
}
