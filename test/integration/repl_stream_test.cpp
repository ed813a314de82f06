// Replication stream drills with real processes (issue 8): a late slave catches up from offset 0
// through several commit-log files into a byte-identical copy; an ASYNC_MASTER's lag under load and
// its rmqnode_replication_lag_bytes while the slave is SIGSTOPped.
#include <doctest/doctest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "common/response_code.h"
#include "broker_calls.h"
#include "http_get.h"
#include "node_config.h"
#include "repl_cluster.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::test;
using namespace std::chrono_literals;

namespace {

// 64 KiB commit-log files: 600 messages of ~1.2 KiB span about a dozen of them.
constexpr int64_t kSmallFile = 64 * 1024;

void sendMany(ReplCluster& c, const std::string& topic, int count, int firstIndex) {
  const std::string body(1000, 'b');
  for (int i = firstIndex; i < firstIndex + count; ++i) {
    auto r = c.client.call(c.masterAddr(), sendRequest({.topic = topic, .body = body + std::to_string(i), .queueId = i % 4}));
    REQUIRE_OK(r);
    REQUIRE(r->code == ResponseCode::SUCCESS);
  }
}

// The one slave connection of the master as it names it ("ip:port" of the slave's HA socket, the
// `slave` label of its metrics), once that slave has reported; "" when there is not exactly one.
std::string slaveSeenByMaster(ReplCluster& c) {
  if (!c.waitSlaveReported()) return "";
  auto slaves = c.runtimeValue(c.masterAddr(), "haSlaves");  // "addr@ack"
  if (!slaves || slaves->find(';') != std::string::npos) return "";
  return slaves->substr(0, slaves->find('@'));
}

std::optional<double> masterMetric(ReplCluster& c, const std::string& series) {
  auto scrape = httpGet(c.masterHttpPort, "/metrics");
  if (scrape.status != 200) return std::nullopt;
  return metricValue(scrape.body, series);
}

}  // namespace

TEST_CASE("repl: a slave that was away catches up through several commit-log files, byte-identical from offset 0") {
  ReplCluster c({.masterRole = "ASYNC_MASTER", .commitLogFileSize = kSmallFile, .extraStore = "haTransferBatchSize = 4096\n"});
  REQUIRE(c.startAll("ReplAway"));
  sendMany(c, "ReplAway", 4, 0);
  auto first = c.maxPhyOffset(c.masterAddr());
  REQUIRE(first);
  REQUIRE(c.waitCaughtUp(*first));
  REQUIRE(c.slave.stop() == 0);

  sendMany(c, "ReplAway", 600, 4);  // while the slave is down
  auto masterMax = c.maxPhyOffset(c.masterAddr());
  REQUIRE(masterMax);
  REQUIRE(*masterMax > 8 * kSmallFile);

  // It resumes from its own max offset and crosses every file boundary (and the master's
  // end-of-file blanks) up to the master's end.
  REQUIRE_MESSAGE(c.slave.restart(30s), c.slave.stderrText());
  REQUIRE(c.waitCaughtUp(*masterMax));
  std::string diff = c.commitLogDiff(0, *masterMax);
  CHECK_MESSAGE(diff.empty(), diff);
  // The slave built its consume queues from the stream: every queue is complete there.
  for (int q = 0; q < 4; ++q) CHECK(dispatched(c.client, c.slaveAddr(), "ReplAway", q, 151));
}

TEST_CASE("repl: a new slave started late begins at the master's last commit-log file (RocketMQ 4.9's rule) and matches it") {
  // Apache RocketMQ 4.9.8's master answers a first report of 0 from the start of its last file, not
  // from 0 (test/reference/ha/java-4.9.8/late-slave.trace.txt); rmqnode does the same.
  ReplCluster c({.masterRole = "ASYNC_MASTER", .commitLogFileSize = kSmallFile, .extraStore = "haTransferBatchSize = 4096\n"});
  REQUIRE(c.startNamesrv());
  REQUIRE(c.startMaster());
  REQUIRE(c.createTopic("ReplLate"));
  sendMany(c, "ReplLate", 600, 0);
  auto masterMax = c.maxPhyOffset(c.masterAddr());
  REQUIRE(masterMax);
  REQUIRE(*masterMax > 8 * kSmallFile);
  const int64_t lastFileStart = *masterMax - *masterMax % kSmallFile;

  REQUIRE(c.startSlave());
  REQUIRE(c.waitCaughtUp(*masterMax));
  std::string diff = c.commitLogDiff(lastFileStart, *masterMax);
  CHECK_MESSAGE(diff.empty(), diff);
  // New messages keep streaming after the catch-up.
  sendMany(c, "ReplLate", 100, 600);
  auto m2 = c.maxPhyOffset(c.masterAddr());
  REQUIRE(m2);
  REQUIRE(c.waitCaughtUp(*m2));
  diff = c.commitLogDiff(lastFileStart, *m2);
  CHECK_MESSAGE(diff.empty(), diff);
}

TEST_CASE("repl ASYNC_MASTER: replication lag under load is measured and the slave keeps up") {
  ReplCluster c({.masterRole = "ASYNC_MASTER"});
  REQUIRE(c.startAll("ReplLag"));
  REQUIRE(eventually([&] { auto l = c.lag(); return l && *l == 0; }, 30s));

  // Four producers for a bounded number of sends; a sampler reads both brokers' max offsets.
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> producers;
  const std::string body(1024, 'l');
  for (int t = 0; t < 4; ++t) {
    producers.emplace_back([&, t] {
      TestClient pc;
      for (int i = 0; i < 1500; ++i) {
        auto r = pc.call(c.masterAddr(), sendRequest({.topic = "ReplLag", .body = body, .queueId = t}));
        if (!r.ok() || r->code != ResponseCode::SUCCESS) failures++;
      }
    });
  }
  int64_t maxLag = 0, samples = 0, slaveAdvancedDuringLoad = 0, lastSlave = 0;
  std::thread sampler([&] {
    while (!done.load()) {
      auto s = c.maxPhyOffset(c.slaveAddr());
      auto m = c.maxPhyOffset(c.masterAddr());
      if (m && s) {
        maxLag = std::max(maxLag, *m - *s);
        if (*s > lastSlave) slaveAdvancedDuringLoad++;
        lastSlave = *s;
        samples++;
      }
      std::this_thread::sleep_for(20ms);
    }
  });
  for (auto& p : producers) p.join();
  done = true;
  sampler.join();
  CHECK(failures.load() == 0);
  auto m = c.maxPhyOffset(c.masterAddr());
  REQUIRE(m);
  const int64_t total = *m;
  MESSAGE("ASYNC_MASTER lag under load: max " << maxLag << " bytes of " << total << " written, " << samples
                                              << " samples");
  // Bounded: the slave streams while the master is loaded (it does not wait for the load to end)
  // and never falls behind by more than what was written; once quiet it reaches the master's end.
  CHECK(slaveAdvancedDuringLoad > 0);
  CHECK(maxLag < total);
  REQUIRE(c.waitCaughtUp(total, 30s));
  auto l = c.lag();
  REQUIRE(l);
  CHECK(*l == 0);
}

TEST_CASE("repl ASYNC_MASTER: rmqnode_replication_lag_bytes is what a SIGSTOPped slave has not acked, 0 after SIGCONT") {
  // A long housekeeping interval keeps the stopped slave's connection (and so its series).
  ReplCluster c({.masterRole = "ASYNC_MASTER", .extraStore = "haHousekeepingInterval = 120000\n", .masterHttp = true});
  REQUIRE(c.startAll("ReplLagM"));
  sendMany(c, "ReplLagM", 5, 0);
  const std::string slave = slaveSeenByMaster(c);
  REQUIRE(!slave.empty());
  const std::string lagSeries =
      "rmqnode_replication_lag_bytes{cluster=\"ReplCluster\",broker=\"broker-r\",slave=\"" + slave + "\"}";
  const std::string diffSeries =
      "rocketmq_broker_commitlog_diff{cluster=\"ReplCluster\",brokerIP=\"" + slave + "\",broker=\"broker-r\"}";
  REQUIRE(eventually([&] { return masterMetric(c, lagSeries) == 0.0; }, 30s));
  auto before = c.maxPhyOffset(c.masterAddr());
  REQUIRE(before);

  REQUIRE(::kill(c.slave.pid(), SIGSTOP) == 0);
  REQUIRE(waitAllThreadsStopped(c.slave.pid(), 30s));
  sendMany(c, "ReplLagM", 50, 5);  // ASYNC_MASTER: SEND_OK without the slave
  auto after = c.maxPhyOffset(c.masterAddr());
  REQUIRE(after);
  REQUIRE(*after > *before);
  // The stopped slave acked none of it: the lag is exactly the bytes written since.
  const double written = static_cast<double>(*after - *before);
  CHECK(masterMetric(c, lagSeries) == written);
  CHECK(masterMetric(c, diffSeries) == written);
  MESSAGE("lag while the slave is stopped: " << written << " bytes");

  REQUIRE(::kill(c.slave.pid(), SIGCONT) == 0);
  CHECK(eventually([&] { return masterMetric(c, lagSeries) == 0.0; }, 60s));
  CHECK(masterMetric(c, diffSeries) == 0.0);
  CHECK(c.waitCaughtUp(*after));
}
