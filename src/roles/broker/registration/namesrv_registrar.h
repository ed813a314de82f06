#pragma once
// NamesrvRegistrar: keeps this broker registered with every name server of namesrvAddr
// (PROTOCOL.md §7.7, §8.8): REGISTER_BROKER to all of them in parallel at start and every
// registerNameServerPeriod, an extra full registration soon after a topic is created, and
// UNREGISTER_BROKER on shutdown. Every answer's masterAddr / haServerAddr go to
// BrokerReplication::onRegistered (a slave follows the master the name servers name).
// Threads: the periodic loop runs as a coroutine on one network io_context; RemotingClient calls
// are asynchronous, so nothing blocks a network thread. start()/stop() from the controller thread.
#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <memory>
#include <string>

#include "net/io_pool.h"
#include "net/remoting_client.h"
#include "roles/broker/broker_context.h"

namespace rmq::broker {

class NamesrvRegistrar {
 public:
  // `clientOptions`: of the connections to the name servers (TLS when the broker's tls.enable says so).
  NamesrvRegistrar(BrokerContext& ctx, std::string haServerAddr, net::ClientOptions clientOptions = {});
  ~NamesrvRegistrar();

  // Registers once (waiting for the answers, errors logged) and starts the periodic loop.
  void start();
  // Requests a registration as soon as possible (coalesced). Any thread.
  void registerSoon();
  // Registers with every name server now; completes when all answered or timed out.
  asio::awaitable<void> registerNow();
  // Stops the loop and sends UNREGISTER_BROKER to every name server (waits for the answers,
  // bounded by registerBrokerTimeoutMills). Must not be called on a network thread.
  void stop();

  // Body of REGISTER_BROKER: RegisterBrokerBody JSON (§3.2).
  std::string registerBody() const;
  uint64_t registrationsSucceeded() const { return succeeded_.load(); }

 private:
  asio::awaitable<void> loop();
  asio::awaitable<void> registerAll();
  asio::awaitable<void> registerOne(std::string addr, std::string body);
  void applyOrderTopics(std::string_view kvTableBody);  // ORDER_TOPIC_CONFIG from the answer

  BrokerContext& ctx_;
  std::string haServerAddr_;
  net::RemotingClient client_;
  asio::io_context& io_;
  std::shared_ptr<asio::steady_timer> wake_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> loopDone_{false};
  std::atomic<bool> pending_{false};
  std::atomic<uint64_t> succeeded_{0};
};

}  // namespace rmq::broker
