#include "client/client_instance.h"

#include <asio/steady_timer.hpp>
#include <fmt/ranges.h>
#include <asio/use_awaitable.hpp>
#include <asio/experimental/as_tuple.hpp>

#include "acl/signature.h"
#include "client/request_headers.h"
#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

std::shared_ptr<ClientInstance> ClientInstance::create(ClientConfig config, std::string clientId) {
  return std::shared_ptr<ClientInstance>(new ClientInstance(std::move(config), std::move(clientId)));
}

ClientInstance::ClientInstance(ClientConfig config, std::string clientId)
    : config_(std::move(config)), clientId_(std::move(clientId)), pool_(config_.ioThreads ? config_.ioThreads : 1) {
  namesrvs_ = resolveNamesrvAddr(config_);
  addressServer_ = namesrvAddressServer(config_);
  net::ClientOptions remotingOptions;
  remotingOptions.clientAsyncSemaphoreValue = config_.clientAsyncSemaphoreValue;
  remotingOptions.clientOnewaySemaphoreValue = config_.clientOnewaySemaphoreValue;
  remotingOptions.tls = config_.tls;
  remoting_ = std::make_unique<net::RemotingClient>(pool_, remotingOptions);
  if (!config_.accessKey.empty()) {
    acl::SessionCredentials credentials{config_.accessKey, config_.secretKey, config_.securityToken};
    remoting_->setRequestHook([credentials](net::RemotingCommand& cmd) { acl::signRequest(cmd, credentials); });
  }
}

ClientInstance::~ClientInstance() { shutdown(); }

Result<void> ClientInstance::start() {
  if (nameServers().empty())
    return makeError(ResponseCode::SYSTEM_ERROR, "no name server address: set namesrvAddr or NAMESRV_ADDR (or an address server: rocketmq.namesrv.domain)");
  if (running_.exchange(true)) return {};
  pool_.start();
  auto self = weak_from_this();
  every(config_.pollNameServerInterval, [self]() -> asio::awaitable<void> {
    if (auto s = self.lock()) co_await s->refreshAllRoutes();
  });
  every(config_.heartbeatBrokerInterval, [self]() -> asio::awaitable<void> {
    if (auto s = self.lock()) co_await s->sendHeartbeatToAllBrokers();
  });
  if (addressServer_) addressRefresher_ = std::thread([this] { refreshNamesrvsFromAddressServer(); });
  return {};
}

// Java MQClientInstance's fetchNameServerAddr task: a list the address server answers replaces
// the current one (an empty or failed answer keeps it). Ends when the client shuts down.
void ClientInstance::refreshNamesrvsFromAddressServer() {
  std::unique_lock lk(namesrvMu_);
  while (running_) {
    refresherWake_.wait_for(lk, config_.namesrvAddrRefreshInterval, [this] { return !running_; });
    if (!running_) return;
    lk.unlock();
    auto fresh = fetchNamesrvList(*addressServer_, config_.rpcTimeout);
    lk.lock();
    if (!fresh.empty() && fresh != namesrvs_) {
      log::info("name server address changed: {} (address server {})", fmt::join(fresh, ";"), *addressServer_);
      namesrvs_ = std::move(fresh);
      namesrvIndex_ = 0;
    }
  }
}

void ClientInstance::shutdown() {
  if (!running_.exchange(false)) return;
  if (addressRefresher_.joinable()) {
    { std::lock_guard lk(namesrvMu_); }  // the refresher is waiting or fetching, not between its test and its wait
    refresherWake_.notify_all();
    addressRefresher_.join();
  }
  {
    std::lock_guard lk(mu_);
    for (auto& t : timers_) {
      auto timer = std::static_pointer_cast<asio::steady_timer>(t);
      asio::post(timer->get_executor(), [timer] { timer->cancel(); });
    }
    timers_.clear();
  }
  remoting_->shutdown();
  pool_.stop();
}

std::vector<std::string> ClientInstance::nameServers() const {
  std::lock_guard lk(namesrvMu_);
  return namesrvs_;
}

void ClientInstance::watchTopic(const std::string& topic) {
  std::lock_guard lk(mu_);
  watched_.insert(topic);
}

void ClientInstance::spawn(asio::awaitable<void> task) {
  asio::co_spawn(io(), std::move(task), [](std::exception_ptr e) {
    if (!e) return;
    try { std::rethrow_exception(e); } catch (const std::exception& ex) {
      log::error("client task failed: {}", ex.what());
    }
  });
}

// Parameters (not lambda captures) so they live in the coroutine frame.
asio::awaitable<void> ClientInstance::periodic(std::shared_ptr<asio::steady_timer> timer,
                                               std::chrono::milliseconds period,
                                               std::function<asio::awaitable<void>()> fn,
                                               std::weak_ptr<ClientInstance> self) {
  for (;;) {
    timer->expires_after(period);
    auto [ec] = co_await timer->async_wait(asio::experimental::as_tuple(asio::use_awaitable));
    {
      auto s = self.lock();
      if (ec || !s || !s->running_) co_return;
    }
    co_await fn();
  }
}

void ClientInstance::every(std::chrono::milliseconds period, std::function<asio::awaitable<void>()> fn) {
  auto timer = std::make_shared<asio::steady_timer>(io());
  {
    std::lock_guard lk(mu_);
    timers_.push_back(timer);
  }
  spawn(periodic(timer, period, std::move(fn), weak_from_this()));
}

asio::awaitable<Result<net::RemotingCommand>> ClientInstance::invoke(const std::string& addr,
                                                                     net::RemotingCommand cmd,
                                                                     std::chrono::milliseconds timeout,
                                                                     InvokeMode mode) {
  cmd.language = net::LanguageCode::CPP;
  if (mode == InvokeMode::Async) co_return co_await remoting_->invokeAsync(addr, std::move(cmd), timeout);
  co_return co_await remoting_->invoke(addr, std::move(cmd), timeout);
}

asio::awaitable<Result<net::RemotingCommand>> ClientInstance::invokeNamesrv(net::RemotingCommand cmd) {
  const auto namesrvs = nameServers();  // a copy: the address server's refresh may replace the list
  if (namesrvs.empty()) co_return makeError(ResponseCode::CLIENT_CONNECT_FAILED, "no name server configured");
  size_t start = namesrvIndex_.load();
  Error last{ResponseCode::CLIENT_CONNECT_FAILED, "no name server reachable"};
  for (size_t k = 0; k < namesrvs.size(); ++k) {
    size_t idx = (start + k) % namesrvs.size();
    auto r = co_await invoke(namesrvs[idx], cmd, config_.rpcTimeout);
    if (r.ok()) {
      namesrvIndex_ = idx;
      co_return r;
    }
    last = r.error();
    log::warn("name server {} failed: {}", namesrvs[idx], last.message);
  }
  co_return last;
}

void ClientInstance::storeRoute(const std::string& topic, TopicRouteData route) {
  bool newBroker = false;
  {
    std::lock_guard lk(mu_);
    for (const auto& b : route.brokerDatas) {
      auto& known = brokerAddrTable_[b.brokerName];
      for (const auto& [id, addr] : b.brokerAddrs) {
        auto it = known.find(id);
        newBroker |= it == known.end() || it->second != addr;
      }
      known = b.brokerAddrs;
    }
    routes_[topic] = std::move(route);
  }
  // A broker we never talked to learns who we are at once, not only at the next 30 s heartbeat
  // (admin views such as producer/consumer connections depend on it).
  if (newBroker && running_) spawn(sendHeartbeatToAllBrokers());
}

asio::awaitable<Result<TopicRouteData>> ClientInstance::route(const std::string& topic, bool refresh) {
  if (!refresh) {
    if (auto cached = cachedRoute(topic)) co_return *cached;
  }
  auto resp = co_await invokeNamesrv(makeRouteRequest(topic));
  if (!resp) co_return resp.error();
  if (resp->code != ResponseCode::SUCCESS) co_return responseError(*resp);
  auto parsed = parseTopicRouteData(resp->body);
  if (!parsed) co_return parsed.error();
  storeRoute(topic, parsed.value());
  co_return parsed;
}

asio::awaitable<Result<TopicRouteData>> ClientInstance::refreshRouteAfterFailure(const std::string& topic) {
  using Shared = net::AsyncResult<Result<TopicRouteData>>;
  std::shared_ptr<Shared> shared;
  bool fetcher = false;
  {
    std::lock_guard lk(mu_);
    auto& state = failureRefresh_[topic];
    if (state.inflight) {
      shared = state.inflight;
    } else if (std::chrono::steady_clock::now() - state.lastDone >= config_.routeRefreshAfterFailureInterval) {
      shared = state.inflight = std::make_shared<Shared>();
      fetcher = true;
    }
  }
  if (!shared) co_return co_await route(topic);  // fetched a moment ago: that route is current
  if (!fetcher) {
    // The fetch tries every name server with rpcTimeout each; past that, the cache.
    const auto bound = config_.rpcTimeout * static_cast<int64_t>(nameServers().size() + 1);
    if (co_await shared->wait(bound)) co_return shared->value();
    co_return co_await route(topic);
  }
  auto fresh = co_await route(topic, true);
  ++failureRefreshes_;
  {
    std::lock_guard lk(mu_);
    auto& state = failureRefresh_[topic];
    state.inflight.reset();
    state.lastDone = std::chrono::steady_clock::now();
  }
  shared->set(fresh);
  if (!fresh) log::warn("route refresh of {} after a failed send: {}", topic, fresh.error().message);
  co_return fresh;
}

void ClientInstance::refreshRouteAfterFailureSoon(std::string topic) {
  spawn([](ClientInstance* self, std::string t) -> asio::awaitable<void> {
    co_await self->refreshRouteAfterFailure(t);
  }(this, std::move(topic)));
}

std::optional<TopicRouteData> ClientInstance::cachedRoute(const std::string& topic) const {
  std::lock_guard lk(mu_);
  auto it = routes_.find(topic);
  if (it == routes_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> ClientInstance::masterAddr(const std::string& brokerName) const {
  std::lock_guard lk(mu_);
  auto it = brokerAddrTable_.find(brokerName);
  if (it == brokerAddrTable_.end()) return std::nullopt;
  auto a = it->second.find(0);
  if (a == it->second.end()) return std::nullopt;
  return a->second;
}

std::optional<FindBrokerResult> ClientInstance::findBrokerAddressInSubscribe(const std::string& brokerName,
                                                                             int64_t brokerId,
                                                                             bool onlyThisBroker) const {
  std::lock_guard lk(mu_);
  auto it = brokerAddrTable_.find(brokerName);
  if (it == brokerAddrTable_.end()) return std::nullopt;
  return findBrokerInSubscribe(it->second, brokerId, onlyThisBroker);
}

std::vector<std::string> ClientInstance::brokerAddrs(bool mastersOnly) const {
  std::lock_guard lk(mu_);
  std::vector<std::string> out;
  for (const auto& [name, addrs] : brokerAddrTable_)
    for (const auto& [id, addr] : addrs)
      if (!mastersOnly || id == 0) out.push_back(addr);
  return out;
}

asio::awaitable<void> ClientInstance::sendHeartbeatToAllBrokers() {
  std::function<std::string()> bodyFn;
  {
    std::lock_guard lk(mu_);
    bodyFn = heartbeatBody_;
  }
  if (!bodyFn) co_return;
  std::string body = bodyFn();
  for (const auto& addr : brokerAddrs(mastersOnlyHeartbeat_)) {
    auto cmd = net::RemotingCommand::request(RequestCode::HEART_BEAT);
    cmd.body = body;
    auto r = co_await invoke(addr, std::move(cmd), config_.rpcTimeout);
    if (!r) log::warn("heartbeat to {} failed: {}", addr, r.error().message);
    else if (r->code != ResponseCode::SUCCESS) log::warn("heartbeat to {} refused: {}", addr, r->code);
  }
}

asio::awaitable<void> ClientInstance::refreshAllRoutes() {
  std::set<std::string> topics;
  {
    std::lock_guard lk(mu_);
    topics = watched_;
    for (const auto& [t, r] : routes_) topics.insert(t);
  }
  for (const auto& t : topics) {
    auto r = co_await route(t, true);
    if (!r && r.error().code != ResponseCode::TOPIC_NOT_EXIST)
      log::warn("route refresh for {} failed: {}", t, r.error().message);
  }
}

}  // namespace rmq::client
