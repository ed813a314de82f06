// rocketmq_client_*: a ConsumerRunningInfo body (fastjson, MessageQueue object keys included)
// parsed into per-topic statuses and written with the exporter's names and label names; the
// keyed traffic counters behind rocketmq_producer_message_size / consumer_message_size.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "metrics/text_writer.h"
#include "roles/broker/stats/broker_stats.h"
#include "roles/broker/stats/client_runtime_stats.h"

using namespace rmq;
using namespace rmq::broker;

TEST_CASE("client runtime stats: the statusTable of a fastjson ConsumerRunningInfo, numbers or numeric strings") {
  // fastjson writes mqTable with MessageQueue objects as keys (not standard JSON).
  std::string body =
      R"({"jstack":"","mqTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"cachedMsgCount":0}},)"
      R"("properties":{"consumeType":"CONSUME_PASSIVELY"},)"
      R"("statusTable":{"T":{"consumeFailedMsgs":3,"consumeFailedTPS":0.5,"consumeOKTPS":12.25,"consumeRT":4.0,)"
      R"("pullRT":1.5,"pullTPS":"7"},"%RETRY%g":{"consumeOKTPS":1},"bad":7},"subscriptionSet":[]})";
  auto table = parseStatusTable(body);
  REQUIRE(table);
  REQUIRE(table->size() == 2);  // "bad" is not an object
  const auto& t = table->at("T");
  CHECK(t.consumeFailedMsgs == 3);
  CHECK(t.consumeFailedTPS == 0.5);
  CHECK(t.consumeOKTPS == 12.25);
  CHECK(t.consumeRT == 4.0);
  CHECK(t.pullRT == 1.5);
  CHECK(t.pullTPS == 7);
  CHECK(table->at("%RETRY%g").consumeOKTPS == 1);
  CHECK(table->at("%RETRY%g").pullTPS == 0);

  CHECK(!parseStatusTable("not json"));
  CHECK(!parseStatusTable("[1,2]"));
  auto none = parseStatusTable(R"({"properties":{}})");
  REQUIRE(none);
  CHECK(none->empty());
}

TEST_CASE("client runtime stats: the six rocketmq_client_* families with labels clientAddr, clientId, group, topic") {
  ClientRuntimeStats::Table table;
  ClientConsumeStatus s;
  s.consumeFailedMsgs = 3;
  s.consumeFailedTPS = 0.5;
  s.consumeOKTPS = 12.25;
  s.consumeRT = 4;
  s.pullRT = 1.5;
  s.pullTPS = 7;
  table[{"127.0.0.1:5000", "10.0.0.1@9", "g", "T"}] = s;
  metrics::TextWriter w;
  ClientRuntimeStats::write(table, w);
  const std::string labels = R"({clientAddr="127.0.0.1:5000",clientId="10.0.0.1@9",group="g",topic="T"})";
  CHECK(w.text() ==
        "# HELP rocketmq_client_consume_fail_msg_count consumerClientFailedMsgCounts\n"
        "# TYPE rocketmq_client_consume_fail_msg_count gauge\n"
        "rocketmq_client_consume_fail_msg_count" + labels + " 3\n"
        "# HELP rocketmq_client_consume_fail_msg_tps consumerClientFailedTPS\n"
        "# TYPE rocketmq_client_consume_fail_msg_tps gauge\n"
        "rocketmq_client_consume_fail_msg_tps" + labels + " 0.5\n"
        "# HELP rocketmq_client_consume_ok_msg_tps consumerClientOKTPS\n"
        "# TYPE rocketmq_client_consume_ok_msg_tps gauge\n"
        "rocketmq_client_consume_ok_msg_tps" + labels + " 12.25\n"
        "# HELP rocketmq_client_consume_rt consumerClientRT\n"
        "# TYPE rocketmq_client_consume_rt gauge\n"
        "rocketmq_client_consume_rt" + labels + " 4\n"
        "# HELP rocketmq_client_consumer_pull_rt consumerClientPullRT\n"
        "# TYPE rocketmq_client_consumer_pull_rt gauge\n"
        "rocketmq_client_consumer_pull_rt" + labels + " 1.5\n"
        "# HELP rocketmq_client_consumer_pull_tps consumerClientPullTPS\n"
        "# TYPE rocketmq_client_consumer_pull_tps gauge\n"
        "rocketmq_client_consumer_pull_tps" + labels + " 7\n");
}

TEST_CASE("keyed counters: updates from several threads all count; rates over the sampled window") {
  static KeyedCounters counters;  // process lifetime, as the real registries (threads cache entries)
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([] {
      for (int i = 0; i < 1000; ++i) counters.add("T", i % 2 ? "g1" : "", 1, 10);
    });
  CHECK(counters.lastMinute("T", "").count == 0);  // fewer than two samples
  for (auto& t : threads) t.join();
  using namespace std::chrono;
  int64_t now = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  counters.sample(now + 1000);
  counters.sample(now + 2000);
  auto topic = counters.lastMinute("T", "");
  auto group = counters.lastMinute("T", "g1");
  // The creation sample is dropped once 61 samples are kept; here the window still starts at it.
  CHECK(topic.count == 2000);
  CHECK(group.count == 2000);
  CHECK(topic.bytesPerSecond > 0);
  CHECK(counters.lastMinute("T", "other").count == 0);
}
