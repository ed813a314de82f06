// PushConsumer lifecycle, subscriptions, rebalance and server-initiated requests. The pull loop
// and consumption live in push_consume.cpp.
#include "client/consumer/push_consumer.h"

#include "client/consumer/running_info.h"

#include <cstdlib>
#include <limits>
#include <set>

#include "client/consumer/allocate.h"
#include "client/broker_api.h"
#include "client/consumer/consume_directly.h"
#include "client/consumer/consumer_status.h"
#include "client/consumer/running_info.h"
#include "client/request_headers.h"
#include "common/json.h"
#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "common/wall_clock.h"

namespace rmq::client {

PushConsumer::PushConsumer(PushConsumerOptions options) : options_(std::move(options)) {
  ClientConfig cfg = options_.client;
  if (cfg.clientIp.empty()) cfg.clientIp = rmq::localIPv4();
  if (cfg.instanceName == "DEFAULT" && options_.messageModel == MessageModel::CLUSTERING)
    cfg.instanceName = uniqueInstanceName();
  instance_ = ClientInstance::create(cfg, buildClientId(cfg.clientIp, cfg.instanceName, cfg.unitName));
}

PushConsumer::~PushConsumer() { shutdown(); }

Result<void> PushConsumer::subscribe(const std::string& topic, const std::string& expression,
                                     filter::ExpressionType type) {
  auto f = filter::compileExpression(type, expression);
  if (!f) return f.error();
  subscriptions_.insert_or_assign(topic, Subscription{f.value(), makeSubscriptionData(topic, f.value())});
  return {};
}

const PushConsumer::Subscription* PushConsumer::subscription(const std::string& topic) const {
  auto it = subscriptions_.find(topic);
  return it == subscriptions_.end() ? nullptr : &it->second;
}

int PushConsumer::maxReconsumeTimes() const {
  if (options_.maxReconsumeTimes != -1) return options_.maxReconsumeTimes;
  return orderly() ? std::numeric_limits<int>::max() : 16;
}

Result<void> PushConsumer::start() {
  if (options_.group.empty()) return makeError(ResponseCode::SYSTEM_ERROR, "consumerGroup is empty");
  if (!listener_ && !orderlyListener_) return makeError(ResponseCode::SYSTEM_ERROR, "messageListener is null");
  if (subscriptions_.empty()) return makeError(ResponseCode::SYSTEM_ERROR, "no subscription");
  if (options_.messageModel == MessageModel::CLUSTERING && !subscriptions_.count(retryTopic(options_.group)))
    subscribe(retryTopic(options_.group), "*");
  startTimestamp_ = nowMillis();
  if (options_.consumeTimestampMs == 0) options_.consumeTimestampMs = startTimestamp_ - 30 * 60 * 1000;
  if (options_.messageModel == MessageModel::BROADCASTING) {
    std::string dir = options_.offsetStoreDir;
    if (dir.empty()) {
      const char* home = std::getenv("HOME");
      dir = std::string(home ? home : "/tmp") + "/.rocketmq_offsets";
    }
    auto local = std::make_unique<LocalFileOffsetStore>(dir, instance_->clientId(), options_.group);
    local->load();
    offsets_ = std::move(local);
  } else {
    offsets_ = std::make_unique<RemoteOffsetStore>(*instance_, options_.group);
  }
  consumePool_ = std::make_unique<asio::thread_pool>(std::max(1, options_.consumeThreadMin));
  instance_->setHeartbeatBody([this] { return heartbeatBody(); });
  for (const auto& [topic, sub] : subscriptions_) instance_->watchTopic(topic);
  registerServerRequests();
  if (auto r = instance_->start(); !r) return r;
  running_ = true;
  instance_->runSync([](PushConsumer* self) -> asio::awaitable<void> {
    co_await self->instance_->refreshAllRoutes();
    co_await self->instance_->sendHeartbeatToAllBrokers();
  }(this));
  rebalanceNow();
  instance_->every(options_.rebalanceInterval, [this]() -> asio::awaitable<void> { co_await rebalance(); });
  if (orderly()) instance_->every(options_.lockRenewInterval, [this]() -> asio::awaitable<void> { co_await lockAll(); });
  instance_->every(options_.persistConsumerOffsetInterval, [this]() -> asio::awaitable<void> { co_await persistAll(); });
  return {};
}

void PushConsumer::shutdown() {
  if (!running_.exchange(false)) return;
  {
    std::lock_guard lk(mu_);
    for (auto& [mq, st] : queues_) st.pq->dropped = true;
  }
  consumePool_->join();  // lets in-flight listeners finish (their offsets still count)
  instance_->runSync([](PushConsumer* self) -> asio::awaitable<void> {
    co_await self->persistAll();
    if (self->orderly() && self->options_.messageModel == MessageModel::CLUSTERING) {
      auto held = self->assignedQueues();
      for (const auto& mq : held) co_await self->offsets_->persist(mq);  // acknowledged before the unlock
      co_await self->unlockQueues(held);  // Java unlockAll(false) on shutdown
    }
    for (const auto& addr : self->instance_->brokerAddrs(false))
    {
      auto cmd = makeUnregisterClient(self->clientId(), std::string(), self->options_.group);
      const std::chrono::milliseconds timeout(1000);
      co_await self->instance_->invoke(addr, std::move(cmd), timeout);
    }
  }(this));
  instance_->shutdown();
}

std::string PushConsumer::heartbeatBody() const {
  ConsumerData data;
  data.groupName = options_.group;
  data.pushConsumer = true;
  data.messageModel = options_.messageModel;
  data.consumeFromWhere = options_.consumeFromWhere;
  for (const auto& [topic, sub] : subscriptions_) data.subscriptions.push_back(sub.data);
  return encodeHeartbeat(instance_->clientId(), {}, {data});
}

std::vector<MessageQueue> PushConsumer::assignedQueues() const {
  std::lock_guard lk(mu_);
  std::vector<MessageQueue> out;
  for (const auto& [mq, st] : queues_) out.push_back(mq);
  return out;
}

void PushConsumer::rebalanceNow() {
  if (running_) instance_->runSync(rebalance());
}

void PushConsumer::persistOffsetsNow() {
  if (running_) instance_->runSync(persistAll());
}

asio::awaitable<void> PushConsumer::persistAll() {
  std::set<MessageQueue> mqs;
  for (const auto& mq : assignedQueues()) mqs.insert(mq);
  co_await offsets_->persistAll(mqs);
}

asio::awaitable<void> PushConsumer::rebalance() {
  if (rebalancing_.exchange(true)) {  // one at a time; a request during a run causes one more run
    rebalanceAgain_ = true;
    co_return;
  }
  do {
    rebalanceAgain_ = false;
    for (const auto& [topic, sub] : subscriptions_) {
      if (!running_) break;
      co_await rebalanceTopic(topic);
    }
  } while (rebalanceAgain_ && running_);
  rebalancing_ = false;
}

asio::awaitable<void> PushConsumer::rebalanceTopic(const std::string& topic) {
  auto route = co_await instance_->route(topic);
  if (!route) {
    if (!isRetryTopic(topic)) log::warn("rebalance: no route for {}: {}", topic, route.error().message);
    co_return;
  }
  auto mqAll = subscribeQueues(topic, *route);
  if (options_.messageModel == MessageModel::BROADCASTING) {
    co_await updateQueues(topic, mqAll);
    co_return;
  }
  auto cids = co_await consumerIdList(*instance_, options_.group, topic);
  if (!cids) {
    log::warn("rebalance: consumer list of {} for {} failed: {}", options_.group, topic, cids.error().message);
    co_return;
  }
  co_await updateQueues(topic, allocateAveragely(clientId(), mqAll, cids.value()));
}

asio::awaitable<void> PushConsumer::updateQueues(const std::string& topic, const std::vector<MessageQueue>& mine) {
  std::set<MessageQueue> wanted(mine.begin(), mine.end());
  std::vector<std::pair<MessageQueue, std::shared_ptr<ProcessQueue>>> removed;
  {
    std::lock_guard lk(mu_);
    for (auto it = queues_.begin(); it != queues_.end();) {
      if (it->first.topic == topic && !wanted.count(it->first)) {
        it->second.pq->dropped = true;
        removed.emplace_back(it->first, it->second.pq);
        it = queues_.erase(it);
      } else {
        ++it;
      }
    }
  }
  const bool locking = orderly() && options_.messageModel == MessageModel::CLUSTERING;
  for (const auto& [mq, pq] : removed) {  // hand the queue over with its latest progress
    bool idle = true;
    if (locking) idle = co_await waitListenerDone(pq);
    if (!idle) pq->tryUnlockTimes.fetch_add(1);  // Java's incTryUnlockTimes: the unlock was given up
    co_await offsets_->persist(mq);
    if (options_.messageModel == MessageModel::CLUSTERING) offsets_->remove(mq);
    if (locking && idle) {  // a listener still running keeps the lock until it expires at the broker
      std::vector<MessageQueue> one{mq};
      co_await unlockQueues(one);
    }
    log::info("{} dropped {}", clientId(), mq.toString());
  }
  for (const auto& mq : mine) {
    {
      std::lock_guard lk(mu_);
      if (queues_.count(mq)) continue;
    }
    auto pq = std::make_shared<ProcessQueue>();
    bool granted = true;
    if (locking) granted = co_await lockQueue(mq, pq);
    if (!granted) {  // Java: a new queue is only taken once locked
      log::info("{}: {} is locked by another member, not taken now", clientId(), mq.toString());
      continue;
    }
    if (options_.messageModel == MessageModel::CLUSTERING) offsets_->remove(mq);
    int64_t offset = co_await computePullFromWhere(mq);
    if (offset < 0) {
      log::warn("{}: cannot compute the start offset of {}", clientId(), mq.toString());
      if (locking) {  // do not keep a queue nobody consumes locked for 60 s
        std::vector<MessageQueue> one{mq};
        co_await unlockQueues(one);
      }
      continue;
    }
    {
      std::lock_guard lk(mu_);
      if (!running_ || queues_.count(mq)) continue;
      queues_[mq] = QueueState{pq};
    }
    log::info("{} pulls {} from offset {}", clientId(), mq.toString(), offset);
    instance_->spawn(pullLoop(mq, pq, offset));
  }
}

asio::awaitable<int64_t> PushConsumer::computePullFromWhere(const MessageQueue& mq) {
  int64_t last = co_await offsets_->readStore(mq);
  if (last >= 0) co_return last;
  if (last != -1) co_return -1;
  const bool retry = isRetryTopic(mq.topic);
  switch (options_.consumeFromWhere) {
    case ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET:
      co_return 0;
    case ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET: {
      if (retry) co_return 0;
      auto r = co_await queueOffsetQuery(*instance_, RequestCode::GET_MAX_OFFSET, mq);
      co_return r ? *r : -1;
    }
    case ConsumeFromWhere::CONSUME_FROM_TIMESTAMP: {
      // Two statements, not one ?: with two co_awaits: GCC 12 mis-destroys their temporaries.
      if (retry) {
        auto r = co_await queueOffsetQuery(*instance_, RequestCode::GET_MAX_OFFSET, mq);
        co_return r ? *r : -1;
      }
      auto r = co_await searchOffset(*instance_, mq, options_.consumeTimestampMs);
      co_return r ? *r : -1;
    }
  }
  co_return -1;
}

void PushConsumer::resetOffsets(const std::string& topic, const std::map<MessageQueue, int64_t>& offsets) {
  {
    std::lock_guard lk(mu_);
    for (auto it = queues_.begin(); it != queues_.end();) {
      if (it->first.topic == topic && offsets.count(it->first)) {
        it->second.pq->dropped = true;
        it = queues_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& [mq, offset] : offsets) offsets_->update(mq, offset, false);
  instance_->spawn([](PushConsumer* self, std::map<MessageQueue, int64_t> table) -> asio::awaitable<void> {
    for (const auto& [mq, offset] : table) co_await self->offsets_->persist(mq);
    co_await self->rebalance();
  }(this, offsets));
}

void PushConsumer::registerServerRequests() {
  auto& d = instance_->remoting().dispatcher();
  d.registerProcessor(RequestCode::NOTIFY_CONSUMER_IDS_CHANGED,
                      [this](net::ConnectionPtr, net::RemotingCommand) -> asio::awaitable<std::optional<net::RemotingCommand>> {
                        if (running_) instance_->spawn(rebalance());
                        co_return std::nullopt;
                      });
  d.registerProcessor(RequestCode::RESET_CONSUMER_CLIENT_OFFSET,
                      [this](net::ConnectionPtr, net::RemotingCommand req) -> asio::awaitable<std::optional<net::RemotingCommand>> {
                        std::string topic(req.extFields.get("topic"));
                        rapidjson::Document doc;
                        std::map<MessageQueue, int64_t> table;
                        if (json::parse(req.body, doc).ok() && doc.IsObject() && doc.HasMember("offsetTable") &&
                            doc["offsetTable"].IsObject()) {
                          for (auto& m : doc["offsetTable"].GetObject()) {
                            auto key = json::parseMessageQueueKey(json::keyView(m.name));
                            if (key && m.value.IsInt64()) table[{key->topic, key->brokerName, key->queueId}] = m.value.GetInt64();
                          }
                        }
                        log::info("{}: reset offsets of {} ({} queues)", clientId(), topic, table.size());
                        resetOffsets(topic, table);
                        co_return net::RemotingCommand::response(ResponseCode::SUCCESS);
                      });
  registerConsumeDirectly(d, options_.group, listener_, orderlyListener_, *consumePool_);
  registerConsumerStatus(d, options_.group, *offsets_);
  d.registerProcessor(RequestCode::GET_CONSUMER_RUNNING_INFO,
                      [this](net::ConnectionPtr, net::RemotingCommand) -> asio::awaitable<std::optional<net::RemotingCommand>> {
                        RunningInfoParts parts;
                        {
                          json::Buffer buf;
                          json::Writer w(buf);
                          w.StartObject();
                          std::lock_guard lk(mu_);
                          for (const auto& [mq, st] : queues_) {
                            json::writeMessageQueueKey(w, {mq.topic, mq.brokerName, mq.queueId});
                            writeProcessQueueInfo(w, *st.pq, offsets_->readMemory(mq));
                          }
                          w.EndObject();
                          parts.mqTableJson.assign(buf.GetString(), buf.GetSize());
                        }
                        parts.properties = {
                            {"PROP_CONSUMEORDERLY", orderly() ? "true" : "false"},
                            {"PROP_CONSUMER_START_TIMESTAMP", std::to_string(startTimestamp_.load())},
                            {"PROP_THREADPOOL_CORE_SIZE", std::to_string(options_.consumeThreadMin)},
                            {"consumerGroup", options_.group},
                            {"messageModel", messageModelName(options_.messageModel)},
                            {"consumeFromWhere", consumeFromWhereName(options_.consumeFromWhere)}};
                        addInstanceProperties(parts, *instance_, true);
                        parts.statusTableJson = stats_.statusTableJson();
                        for (const auto& [topic, sub] : subscriptions_)
                          parts.subscriptionJsons.push_back(encodeSubscriptionData(sub.data));
                        auto resp = net::RemotingCommand::response(ResponseCode::SUCCESS);
                        resp.body = encodeRunningInfo(parts);
                        co_return resp;
                      });
}

}  // namespace rmq::client
