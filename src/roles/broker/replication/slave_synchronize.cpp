#include "roles/broker/replication/slave_synchronize.h"

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/as_tuple.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>

#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/delivery/schedule_message_service.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"

namespace rmq::broker {

namespace {
using asio::use_awaitable;
using asio::experimental::as_tuple;
constexpr std::chrono::milliseconds kTimeout{3000};

// "ip:port" -> "ip:port-2": Java reads the topic table through the master's VIP channel.
std::string vipAddressOf(const std::string& addr) {
  auto colon = addr.rfind(':');
  if (colon == std::string::npos) return addr;
  int port = std::atoi(addr.c_str() + colon + 1);
  return addr.substr(0, colon + 1) + std::to_string(port - 2);
}

// The "dataVersion" of a TopicConfigSerializeWrapper / SubscriptionGroupWrapper body.
std::optional<DataVersion> dataVersionOf(std::string_view body) {
  auto doc = json::parse(body);
  if (!doc || !doc->IsObject()) return std::nullopt;
  auto dv = doc->FindMember("dataVersion");
  if (dv == doc->MemberEnd() || !dv->value.IsObject()) return std::nullopt;
  DataVersion v;
  v.counter = json::getInt(dv->value, "counter");
  v.timestamp = json::getInt(dv->value, "timestamp");
  return v;
}
}  // namespace

SlaveSynchronize::SlaveSynchronize(BrokerContext& ctx, std::chrono::milliseconds period)
    : ctx_(ctx), client_(ctx.io), wake_(std::make_shared<asio::steady_timer>(ctx.background)), period_(period) {}

SlaveSynchronize::~SlaveSynchronize() {
  stop();
  client_.shutdown();
}

void SlaveSynchronize::start() {
  asio::co_spawn(ctx_.background, loop(), asio::detached);
}

void SlaveSynchronize::stop() {
  if (stopped_.exchange(true)) return;
  asio::post(ctx_.background, [wake = wake_] { wake->cancel(); });
}

void SlaveSynchronize::setMasterAddr(const std::string& addr) {
  bool first;
  {
    std::lock_guard lock(mu_);
    if (addr == masterAddr_) return;
    first = masterAddr_.empty();
    log::info("slave sync: master address {} -> {}", masterAddr_.empty() ? "(none)" : masterAddr_,
              addr.empty() ? "(none)" : addr);
    masterAddr_ = addr;
  }
  if (first) asio::post(ctx_.background, [wake = wake_] { wake->cancel(); });  // sync now
}

std::string SlaveSynchronize::masterAddr() const {
  std::lock_guard lock(mu_);
  return masterAddr_;
}

asio::awaitable<void> SlaveSynchronize::loop() {
  while (!stopped_) {
    wake_->expires_after(period_);
    co_await wake_->async_wait(as_tuple(use_awaitable));
    if (stopped_) co_return;
    co_await syncAll();
  }
}

asio::awaitable<void> SlaveSynchronize::syncAll() {
  std::string master = masterAddr();
  if (master.empty() || master == ctx_.config.brokerAddr()) co_return;
  co_await syncTopicConfig(master);
  co_await syncConsumerOffset(master);
  co_await syncDelayOffset(master);
  co_await syncSubscriptionGroupConfig(master);
  ++rounds_;
}

asio::awaitable<Result<net::RemotingCommand>> SlaveSynchronize::fetch(const std::string& addr, int code) {
  auto res = co_await client_.invoke(addr, net::RemotingCommand::request(code), kTimeout);
  if (!res) co_return res.error();
  if (res->code != ResponseCode::SUCCESS)
    co_return makeError(res->code, "code " + std::to_string(res->code) + " " + res->remark.value_or(""));
  co_return std::move(*res);
}

asio::awaitable<void> SlaveSynchronize::syncTopicConfig(const std::string& master) {
  const std::string vip = vipAddressOf(master);
  auto res = co_await fetch(vip, RequestCode::GET_ALL_TOPIC_CONFIG);
  if (!res) {  // a master without a VIP port (it was taken): the main port answers the same
    log::debug("slave sync: topic configs from VIP {} failed ({}), asking {}", vip, res.error().message, master);
    res = co_await fetch(master, RequestCode::GET_ALL_TOPIC_CONFIG);
  }
  if (!res) {
    log::warn("slave sync: topic configs from {} failed: {}", master, res.error().message);
    co_return;
  }
  auto decoded = TopicConfigManager::decode(res->body);
  if (!decoded) {
    log::warn("slave sync: topic configs from {} unreadable: {}", vip, decoded.error().message);
    co_return;
  }
  if (decoded->first == ctx_.topics.dataVersion()) co_return;
  ctx_.topics.replaceAll(decoded->first, decoded->second);
  if (auto r = ctx_.topics.persist(); !r) log::warn("slave sync: persist topics: {}", r.error().message);
  log::info("slave sync: topic configs updated from master {} ({} topics)", master, decoded->second.size());
}

asio::awaitable<void> SlaveSynchronize::syncConsumerOffset(const std::string& master) {
  auto res = co_await fetch(master, RequestCode::GET_ALL_CONSUMER_OFFSET);
  if (!res) {
    log::warn("slave sync: consumer offsets from {} failed: {}", master, res.error().message);
    co_return;
  }
  if (auto r = ctx_.offsets.decodeAndMerge(res->body); !r) {
    log::warn("slave sync: consumer offsets from {} unreadable: {}", master, r.error().message);
    co_return;
  }
  if (auto r = ctx_.offsets.persist(); !r) log::warn("slave sync: persist consumer offsets: {}", r.error().message);
}

asio::awaitable<void> SlaveSynchronize::syncDelayOffset(const std::string& master) {
  auto res = co_await fetch(master, RequestCode::GET_ALL_DELAY_OFFSET);
  if (!res) {
    log::warn("slave sync: delay offsets from {} failed: {}", master, res.error().message);
    co_return;
  }
  if (!ctx_.schedule || res->body.empty()) co_return;
  if (auto r = ctx_.schedule->decodeAndReplace(res->body); !r) {
    log::warn("slave sync: delay offsets from {} unreadable: {}", master, r.error().message);
    co_return;
  }
  if (auto r = ctx_.schedule->persist(); !r) log::warn("slave sync: persist delay offsets: {}", r.error().message);
}

asio::awaitable<void> SlaveSynchronize::syncSubscriptionGroupConfig(const std::string& master) {
  auto res = co_await fetch(master, RequestCode::GET_ALL_SUBSCRIPTIONGROUP_CONFIG);
  if (!res) {
    log::warn("slave sync: subscription groups from {} failed: {}", master, res.error().message);
    co_return;
  }
  auto version = dataVersionOf(res->body);
  if (!version) {
    log::warn("slave sync: subscription groups from {} have no dataVersion", master);
    co_return;
  }
  if (*version == ctx_.groups.dataVersion()) co_return;
  if (auto r = ctx_.groups.decodeAndReplace(res->body); !r) {
    log::warn("slave sync: subscription groups from {} unreadable: {}", master, r.error().message);
    co_return;
  }
  if (auto r = ctx_.groups.persist(); !r) log::warn("slave sync: persist subscription groups: {}", r.error().message);
  log::info("slave sync: subscription groups updated from master {}", master);
}

}  // namespace rmq::broker
