#include "roles/broker/registration/namesrv_registrar.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/use_future.hpp>

#include "common/json.h"
#include "common/log.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/text_split.h"
#include "common/response_code.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "roles/broker/registration/register_body.h"
#include "roles/broker/replication/broker_replication.h"

namespace rmq::broker {

using asio::use_awaitable;
using asio::experimental::as_tuple;

NamesrvRegistrar::NamesrvRegistrar(BrokerContext& ctx, std::string haServerAddr, net::ClientOptions clientOptions)
    : ctx_(ctx),
      haServerAddr_(std::move(haServerAddr)),
      client_(ctx.io, std::move(clientOptions)),
      io_(ctx.io.next()),
      wake_(std::make_shared<asio::steady_timer>(io_)) {}

NamesrvRegistrar::~NamesrvRegistrar() { client_.shutdown(); }

// From BrokerRole, at each registration: brokerId 0 only while a failover master's lease is proven
// (its own id otherwise), the failover epoch (0 without failover: no stateVersion sent).
RegistrationIdentity NamesrvRegistrar::identity() const {
  return RegistrationIdentity{ctx_.role.registrationId(), haServerAddr_, ctx_.role.epoch()};
}

std::string NamesrvRegistrar::encodeBody(const DataVersion& version, int64_t epoch,
                                         const std::vector<TopicConfig>& topics) const {
  int32_t brokerPerm = ctx_.config.brokerPermission;
  if (ctx_.config.compressedRegister) return encodeRegisterBodyCompressed(version, epoch, topics, brokerPerm);
  return encodeRegisterBody(version, epoch, topics, brokerPerm);
}

std::string NamesrvRegistrar::registerBody() const {
  return encodeBody(ctx_.topics.dataVersion(), identity().epoch, ctx_.topics.all());
}

void NamesrvRegistrar::start() {
  if (namesrvList().empty() && !ctx_.config.fetchNamesrvAddrByAddressServer) {
    log::warn("namesrvAddr is empty: broker {} will not register with any name server", ctx_.config.brokerName);
  }
  // First registration is awaited so clients can route to us as soon as start() returns.
  asio::co_spawn(io_, registerAll(true), asio::use_future).get();
  asio::co_spawn(io_, loop(), [this](std::exception_ptr) { loopDone_ = true; });
}

void NamesrvRegistrar::registerSoon() {
  pending_ = true;
  asio::post(io_, [wake = wake_] { wake->cancel(); });
}

asio::awaitable<void> NamesrvRegistrar::registerNow() {
  co_await asio::co_spawn(io_, registerAll(true), use_awaitable);
}

asio::awaitable<void> NamesrvRegistrar::registerIncrement(TopicConfig topic) {
  RegistrationIdentity id = identity();
  DataVersion version = ctx_.topics.dataVersion();
  std::vector<TopicConfig> one{std::move(topic)};
  std::string body = encodeBody(version, id.epoch, one);
  co_await asio::co_spawn(io_, sendToAll(std::move(body), std::move(id)), use_awaitable);
}

// A registerSoon() wakes the loop early and registers unconditionally; the timer's own rounds
// honour forceRegister (Java: registerBrokerAll(true, false, brokerConfig.isForceRegister())).
asio::awaitable<void> NamesrvRegistrar::loop() {
  int64_t period = std::clamp<int64_t>(ctx_.config.registerNameServerPeriod, 10000, 60000);
  while (!stopped_) {
    bool soon = pending_.exchange(false);
    if (!soon) {
      wake_->expires_after(std::chrono::milliseconds(period));
      co_await wake_->async_wait(as_tuple(use_awaitable));
      if (stopped_) break;
      soon = pending_.exchange(false);
    }
    co_await registerAll(soon || ctx_.config.forceRegister);
  }
}

asio::awaitable<void> NamesrvRegistrar::registerAll(bool force) {
  if (namesrvList().empty()) co_return;
  // Body and identity read together, once: every name server hears the same registration.
  RegistrationIdentity id = identity();
  DataVersion version = ctx_.topics.dataVersion();
  if (!force) {
    bool need = co_await needRegister(id, version);
    if (!need) {
      ++skipped_;
      log::info("registration skipped: every name server holds data version {}", encodeDataVersion(version, id.epoch));
      co_return;
    }
  }
  const auto topics = ctx_.topics.all();
  std::string body = encodeBody(version, id.epoch, topics);
  const size_t bytes = body.size();
  const auto start = std::chrono::steady_clock::now();
  co_await sendToAll(std::move(body), std::move(id));
  // What a full registration weighs as the topic table grows (issue 23 §2); Java logs each one too.
  log::info("registered {} topics with the name servers: body {} B, {} ms", topics.size(), bytes,
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
}

asio::awaitable<void> NamesrvRegistrar::forEachNamesrv(PerNamesrv one) {
  auto list = namesrvList();
  if (list.empty()) co_return;
  // One coroutine per name server, in parallel; `done` is cancelled when the last one finishes.
  auto done = std::make_shared<asio::steady_timer>(io_, asio::steady_timer::time_point::max());
  auto remaining = std::make_shared<size_t>(list.size());
  for (auto& addr : list) {
    asio::co_spawn(io_, one(addr), [done, remaining](std::exception_ptr) {
      if (--*remaining == 0) done->cancel();
    });
  }
  co_await done->async_wait(as_tuple(use_awaitable));
}

asio::awaitable<void> NamesrvRegistrar::sendToAll(std::string body, RegistrationIdentity id) {
  PerNamesrv one = [this, &body, &id](std::string addr) { return registerOne(std::move(addr), body, id); };
  co_await forEachNamesrv(std::move(one));
}

asio::awaitable<bool> NamesrvRegistrar::needRegister(const RegistrationIdentity& id, const DataVersion& version) {
  std::string mine = encodeDataVersion(version, id.epoch);
  auto changed = std::make_shared<bool>(false);
  PerNamesrv one = [this, &mine, &id, changed](std::string addr) -> asio::awaitable<void> {
    return queryDataVersion(std::move(addr), mine, id, changed);
  };
  co_await forEachNamesrv(std::move(one));
  co_return *changed;
}

asio::awaitable<void> NamesrvRegistrar::queryDataVersion(std::string addr, std::string mine, RegistrationIdentity id,
                                                         std::shared_ptr<bool> changed) {
  const auto& cfg = ctx_.config;
  auto req = net::RemotingCommand::request(RequestCode::QUERY_DATA_VERSION);
  req.extFields.set("brokerName", cfg.brokerName);
  req.extFields.set("brokerAddr", cfg.brokerAddr());
  req.extFields.set("clusterName", cfg.brokerClusterName);
  req.extFields.set("brokerId", id.brokerId);
  req.body = mine;
  auto res = co_await client_.invoke(addr, std::move(req), std::chrono::milliseconds(cfg.registerBrokerTimeoutMills));
  // As Java's BrokerOuterAPI.needRegister: no answer = changed; an answer other than SUCCESS = not.
  if (!res.ok()) {
    log::warn("query data version from name server {} failed: {}", addr, res.error().message);
    *changed = true;
    co_return;
  }
  if (res->code != ResponseCode::SUCCESS) co_return;
  bool differs = res->extFields.getBool("changed").value_or(true);
  // The name server's own version (its body) must be ours too.
  if (!res->body.empty() && !sameDataVersionJson(res->body, mine)) differs = true;
  if (differs) *changed = true;
}

asio::awaitable<void> NamesrvRegistrar::registerOne(std::string addr, std::string body, RegistrationIdentity id) {
  const auto& cfg = ctx_.config;
  auto req = net::RemotingCommand::request(RequestCode::REGISTER_BROKER);
  req.extFields.set("brokerName", cfg.brokerName);
  req.extFields.set("brokerAddr", cfg.brokerAddr());
  req.extFields.set("clusterName", cfg.brokerClusterName);
  req.extFields.set("haServerAddr", id.haServerAddr);
  req.extFields.set("brokerId", id.brokerId);
  req.extFields.set("compressed", std::string(cfg.compressedRegister ? "true" : "false"));
  req.extFields.set("bodyCrc32", static_cast<int64_t>(crc32Masked(body)));
  req.body = std::move(body);
  auto res = co_await client_.invoke(addr, std::move(req),
                                     std::chrono::milliseconds(cfg.registerBrokerTimeoutMills));
  if (!res.ok()) {
    log::warn("register broker to name server {} failed: {}", addr, res.error().message);
    co_return;
  }
  if (res->code != ResponseCode::SUCCESS) {
    log::warn("register broker to name server {} refused: code {} {}", addr, res->code, res->remark.value_or(""));
    co_return;
  }
  ++succeeded_;
  // RegisterBrokerResponseHeader: a slave learns its master's remoting and HA addresses (§9.4).
  if (ctx_.replication) ctx_.replication->onRegistered(res->extFields.get("masterAddr"), res->extFields.get("haServerAddr"));
  applyOrderTopics(res->body);
}

void NamesrvRegistrar::applyOrderTopics(std::string_view kvTableBody) {
  if (kvTableBody.empty()) return;
  rapidjson::Document doc;
  if (!rmq::json::parse(kvTableBody, doc).ok() || !doc.IsObject() || !doc.HasMember("table")) return;
  const auto& table = doc["table"];
  if (!table.IsObject()) return;
  std::vector<std::string> orderTopics;
  for (auto& m : table.GetObject()) orderTopics.emplace_back(rmq::json::keyView(m.name));
  ctx_.topics.updateOrderTopicConfig(orderTopics);
}

void NamesrvRegistrar::setFetchedNamesrvAddr(const std::string& addrs) {
  {
    std::lock_guard lock(fetchedMu_);
    if (addrs == fetchedNamesrvAddr_) return;
    log::info("name server address changed, old: {} new: {}", fetchedNamesrvAddr_, addrs);
    fetchedNamesrvAddr_ = addrs;
  }
  registerSoon();
}

std::vector<std::string> NamesrvRegistrar::namesrvList() const {
  auto configured = ctx_.config.namesrvList();
  if (!configured.empty()) return configured;
  std::lock_guard lock(fetchedMu_);
  return splitTrimmed(fetchedNamesrvAddr_, ';');
}

void NamesrvRegistrar::stop() {
  if (stopped_.exchange(true)) return;
  asio::post(io_, [wake = wake_] { wake->cancel(); });
  const auto& cfg = ctx_.config;
  const int64_t brokerId = identity().brokerId;
  for (auto& addr : namesrvList()) {
    auto req = net::RemotingCommand::request(RequestCode::UNREGISTER_BROKER);
    req.extFields.set("brokerName", cfg.brokerName);
    req.extFields.set("brokerAddr", cfg.brokerAddr());
    req.extFields.set("clusterName", cfg.brokerClusterName);
    req.extFields.set("brokerId", brokerId);
    auto res = client_.invokeSync(addr, std::move(req), std::chrono::milliseconds(cfg.registerBrokerTimeoutMills));
    if (!res.ok()) log::warn("unregister broker from name server {} failed: {}", addr, res.error().message);
  }
}

}  // namespace rmq::broker
