#pragma once
// ClientInstance: the network side one producer/consumer/admin object owns (Java MQClientInstance,
// one per client object here): its IoPool + RemotingClient, the name server list, the topic route
// cache and broker address table, and the periodic route refresh (30 s) and heartbeat (30 s).
// Threads: all coroutines run on this instance's IoPool; public methods are thread-safe. The
// blocking helpers (runSync) must not be called from an IoPool thread.
// Lifecycle: create -> start() -> ... -> shutdown() (idempotent; also done by the destructor).
#include <asio/awaitable.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/steady_timer.hpp>
#include <atomic>
#include <condition_variable>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <thread>
#include <string>
#include <vector>

#include "client/client_config.h"
#include "client/route.h"
#include "common/result.h"
#include "net/async_result.h"
#include "net/io_pool.h"
#include "net/remoting_client.h"

namespace rmq::client {

// Java's CommunicationMode for a request that expects an answer: Sync = the caller awaits it
// (net::RemotingClient::invoke, uncapped); Async = Java's invokeAsync (sendAsync, the push
// consumer's pulls), counted against ClientConfig::clientAsyncSemaphoreValue.
enum class InvokeMode { Sync, Async };

class ClientInstance : public std::enable_shared_from_this<ClientInstance> {
 public:
  // clientId: the id this client announces (see buildClientId).
  static std::shared_ptr<ClientInstance> create(ClientConfig config, std::string clientId);
  ~ClientInstance();

  // Starts the network threads and the periodic tasks. Fails when no name server is configured.
  Result<void> start();
  void shutdown();
  bool running() const { return running_; }

  const ClientConfig& config() const { return config_; }
  const std::string& clientId() const { return clientId_; }
  asio::io_context& io() { return pool_.at(0); }
  net::RemotingClient& remoting() { return *remoting_; }
  std::vector<std::string> nameServers() const;

  // Heartbeat body producer (set by the owning producer/consumer) and the topics whose routes the
  // instance keeps fresh. The heartbeat goes to every broker address in the route cache.
  void setHeartbeatBody(std::function<std::string()> body) { std::lock_guard lk(mu_); heartbeatBody_ = std::move(body); }
  void watchTopic(const std::string& topic);
  void setMastersOnlyHeartbeat(bool v) { mastersOnlyHeartbeat_ = v; }

  // Name server call: tries each name server (starting with the last one that answered) until
  // one answers at the transport level.
  asio::awaitable<Result<net::RemotingCommand>> invokeNamesrv(net::RemotingCommand cmd);
  asio::awaitable<Result<net::RemotingCommand>> invoke(const std::string& addr, net::RemotingCommand cmd,
                                                       std::chrono::milliseconds timeout,
                                                       InvokeMode mode = InvokeMode::Sync);
  // Route from the cache, fetched from the name server when absent (or when refresh is true).
  asio::awaitable<Result<TopicRouteData>> route(const std::string& topic, bool refresh = false);
  std::optional<TopicRouteData> cachedRoute(const std::string& topic) const;
  // A send to `topic` failed (a failover: master dead or fenced, a slave answering 14; or a stale
  // route): fetches the route from the name server now instead of at the next 30 s poll. At most
  // one fetch per topic per ClientConfig::routeRefreshAfterFailureInterval: concurrent callers
  // share the fetch under way (and its result); inside the interval the cached route is returned.
  asio::awaitable<Result<TopicRouteData>> refreshRouteAfterFailure(const std::string& topic);
  // The same, not awaited (after a send's last attempt): the next send finds the fresh route.
  void refreshRouteAfterFailureSoon(std::string topic);
  // Name server fetches refreshRouteAfterFailure made (tests, diagnostics).
  uint64_t routeRefreshesAfterFailure() const { return failureRefreshes_.load(); }
  // Addresses known from cached routes.
  // Java findBrokerAddressInPublish: the master only (sends, queue offsets, send-back).
  std::optional<std::string> masterAddr(const std::string& brokerName) const;
  // Java findBrokerAddressInSubscribe (see findBrokerInSubscribe): pulls and consumer offsets.
  std::optional<FindBrokerResult> findBrokerAddressInSubscribe(const std::string& brokerName, int64_t brokerId,
                                                               bool onlyThisBroker) const;
  std::vector<std::string> brokerAddrs(bool mastersOnly) const;

  asio::awaitable<void> sendHeartbeatToAllBrokers();
  asio::awaitable<void> refreshAllRoutes();
  // Runs fn every `period` on the io thread until shutdown.
  void every(std::chrono::milliseconds period, std::function<asio::awaitable<void>()> fn);
  void spawn(asio::awaitable<void> task);

  template <class T>
  T runSync(asio::awaitable<T> task) {
    // Before start() or after shutdown() no io thread runs the task: waiting would hang forever.
    if (!running_) throw std::logic_error("ClientInstance::runSync called before start() or after shutdown()");
    std::promise<T> done;
    auto fut = done.get_future();
    asio::co_spawn(io(), fulfil(&done, std::move(task)), asio::detached);
    return fut.get();
  }

 private:
  ClientInstance(ClientConfig config, std::string clientId);
  template <class T>
  static asio::awaitable<void> fulfil(std::promise<T>* done, asio::awaitable<T> task) {
    try {
      if constexpr (std::is_void_v<T>) {
        co_await std::move(task);
        done->set_value();
      } else {
        done->set_value(co_await std::move(task));
      }
    } catch (...) {
      done->set_exception(std::current_exception());
    }
  }
  static asio::awaitable<void> periodic(std::shared_ptr<asio::steady_timer> timer, std::chrono::milliseconds period,
                                        std::function<asio::awaitable<void>()> fn, std::weak_ptr<ClientInstance> self);
  void storeRoute(const std::string& topic, TopicRouteData route);

  ClientConfig config_;
  std::string clientId_;
  std::vector<std::string> namesrvs_;  // guarded by namesrvMu_ (the address server's refresh replaces it)
  mutable std::mutex namesrvMu_;
  // Name servers from the address server: its URL, and the thread that asks it again every
  // namesrvAddrRefreshInterval (the fetch blocks, so not on a network thread).
  std::optional<std::string> addressServer_;
  std::thread addressRefresher_;
  std::condition_variable refresherWake_;
  void refreshNamesrvsFromAddressServer();
  net::IoPool pool_;
  std::unique_ptr<net::RemotingClient> remoting_;
  std::atomic<bool> running_{false};
  std::atomic<size_t> namesrvIndex_{0};
  bool mastersOnlyHeartbeat_ = false;

  mutable std::mutex mu_;
  std::map<std::string, TopicRouteData> routes_;
  std::map<std::string, std::map<int64_t, std::string>> brokerAddrTable_;  // brokerName -> id -> addr
  std::set<std::string> watched_;
  std::function<std::string()> heartbeatBody_;
  struct FailureRefresh {
    std::chrono::steady_clock::time_point lastDone{};
    std::shared_ptr<net::AsyncResult<Result<TopicRouteData>>> inflight;  // the fetch under way
  };
  std::map<std::string, FailureRefresh> failureRefresh_;  // by topic
  std::atomic<uint64_t> failureRefreshes_{0};
  std::vector<std::shared_ptr<void>> timers_;
};

}  // namespace rmq::client
