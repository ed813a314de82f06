#pragma once
// The exporter's rocketmq_client_* families (its ClientMetricTaskRunnable): every online
// consumer's ConsumerRunningInfo statusTable, per (client, topic). A periodic task on
// ctx.background asks each consumer connected here with GET_CONSUMER_RUNNING_INFO (307, async
// invoke: no thread waits) and replaces the cache with the answers of that round; a client that
// does not answer (timeout, error, unparsable body) is skipped. GET /metrics reads the cache only.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "metrics/text_writer.h"
#include "roles/broker/broker_context.h"

namespace rmq::broker {

// Java's ClientConsumeStatus (one topic of a ConsumerRunningInfo statusTable).
struct ClientConsumeStatus {
  double pullRT = 0;
  double pullTPS = 0;
  double consumeRT = 0;
  double consumeOKTPS = 0;
  double consumeFailedTPS = 0;
  int64_t consumeFailedMsgs = 0;
};

// topic -> status from a ConsumerRunningInfo JSON body (fastjson or standard JSON); nullopt when
// the body is not a JSON object. Topics whose status is not an object are left out.
std::optional<std::map<std::string, ClientConsumeStatus>> parseStatusTable(std::string_view runningInfoJson);

class ClientRuntimeStats : public std::enable_shared_from_this<ClientRuntimeStats> {
 public:
  struct Key {
    std::string clientAddr, clientId, group, topic;
    bool operator<(const Key& o) const;
  };
  using Table = std::map<Key, ClientConsumeStatus>;

  // Asks every `period` on ctx.background until the broker shuts down (first round at once).
  static std::shared_ptr<ClientRuntimeStats> start(BrokerContext& ctx, std::chrono::milliseconds period);

  Table snapshot() const;
  // rocketmq_client_consume_fail_msg_count, _consume_fail_msg_tps, _consume_ok_msg_tps,
  // _consume_rt, _consumer_pull_rt, _consumer_pull_tps {clientAddr, clientId, group, topic}.
  static void write(const Table& table, metrics::TextWriter& w);

 private:
  explicit ClientRuntimeStats(BrokerContext& ctx) : ctx_(ctx) {}
  asio::awaitable<void> run(std::chrono::milliseconds period);
  asio::awaitable<Table> collectRound();

  BrokerContext& ctx_;
  mutable std::mutex mu_;
  Table table_;  // the last round's answers
};

}  // namespace rmq::broker
