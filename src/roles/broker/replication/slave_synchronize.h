#pragma once
// SlaveSynchronize: a slave copies the master's metadata (PROTOCOL.md §9.6, Java's
// broker.slave.SlaveSynchronize) so it can serve consumers when its master is gone:
//   topic configs          GET_ALL_TOPIC_CONFIG (21) on the master's VIP port (listenPort - 2,
//                          as Java; its main port when the VIP port does not answer);
//                          replaced (and the master's DataVersion adopted) when the version differs
//   consumer offsets       GET_ALL_CONSUMER_OFFSET (43): merged, the master's entries win
//   delay offsets          GET_ALL_DELAY_OFFSET (45): taken as they are
//   subscription groups    GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201): taken when the version differs
// Each changed table is persisted. Runs as soon as the master's address is first known, then
// every 10 s (Java: first after 3 s, then every 10 s; failover: failoverMetadataSyncIntervalMs); skipped while the master address is unknown
// or is this broker. 3 s timeout per request; a failure is logged and retried next round.
// Threads: the loop runs on ctx.background (blocking file writes are fine there).
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "net/remoting_client.h"
#include "roles/broker/broker_context.h"

namespace rmq::broker {

class SlaveSynchronize {
 public:
  // period: 10 s as Java (failover: failoverMetadataSyncIntervalMs, so a new master is current).
  explicit SlaveSynchronize(BrokerContext& ctx, std::chrono::milliseconds period = std::chrono::milliseconds(10000));
  ~SlaveSynchronize();

  void start();
  void stop();
  // The master's remoting address from the registration answer (empty = no master known).
  void setMasterAddr(const std::string& addr);
  std::string masterAddr() const;
  uint64_t rounds() const { return rounds_.load(); }  // completed syncAll() rounds

  asio::awaitable<void> syncAll();

 private:
  asio::awaitable<void> loop();
  asio::awaitable<Result<net::RemotingCommand>> fetch(const std::string& addr, int code);
  asio::awaitable<void> syncTopicConfig(const std::string& master);
  asio::awaitable<void> syncConsumerOffset(const std::string& master);
  asio::awaitable<void> syncDelayOffset(const std::string& master);
  asio::awaitable<void> syncSubscriptionGroupConfig(const std::string& master);

  BrokerContext& ctx_;
  net::RemotingClient client_;
  std::shared_ptr<asio::steady_timer> wake_;
  const std::chrono::milliseconds period_;
  std::atomic<bool> stopped_{false};
  std::atomic<uint64_t> rounds_{0};
  mutable std::mutex mu_;
  std::string masterAddr_;
};

}  // namespace rmq::broker
