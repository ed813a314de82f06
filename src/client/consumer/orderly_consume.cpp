// PushConsumer orderly path (Java ConsumeMessageOrderlyService + RebalancePushImpl's lock
// handling): queue locks at the master, one consume task per queue taking one batch at a time in
// queue order, retry in place on SUSPEND_CURRENT_QUEUE_A_MOMENT, DLQ after maxReconsumeTimes,
// offsets committed per consumed batch. Consume tasks run on the consume pool; locking on the io thread.
#include <set>

#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/experimental/as_tuple.hpp>

#include "client/broker_api.h"
#include "client/consumer/orderly_lock.h"
#include "client/consumer/push_consumer.h"
#include "common/log.h"
#include "common/wall_clock.h"

namespace rmq::client {

namespace {

// Java RebalanceImpl / ProcessQueue constants.
constexpr int64_t kLockExpiredMs = 30000;              // client side: a lock older than this is not trusted
constexpr auto kMaxConsumeContinuously = std::chrono::seconds(60);  // then yield the thread
constexpr auto kRelockDelay = std::chrono::milliseconds(3000);      // lock lost: try again after

std::map<std::string, std::vector<MessageQueue>> byBroker(const std::vector<MessageQueue>& mqs) {
  std::map<std::string, std::vector<MessageQueue>> out;
  for (const auto& mq : mqs) out[mq.brokerName].push_back(mq);
  return out;
}

}  // namespace

asio::awaitable<bool> PushConsumer::lockQueue(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq) {
  std::vector<MessageQueue> one{mq};
  auto r = co_await lockBatchMQ(*instance_, mq.brokerName, options_.group, one);
  bool ok = r && r->size() == 1 && r->front() == mq;
  if (!r) log::warn("{}: lock {} failed: {}", clientId(), mq.toString(), r.error().message);
  if (ok && pq) {
    pq->locked = true;
    pq->lastLockTimestamp = nowMillis();
  }
  co_return ok;
}

asio::awaitable<void> PushConsumer::lockAll() {
  if (!orderly() || options_.messageModel != MessageModel::CLUSTERING || !running_) co_return;
  std::map<MessageQueue, std::shared_ptr<ProcessQueue>> pqs;
  {
    std::lock_guard lk(mu_);
    for (const auto& [mq, st] : queues_) pqs[mq] = st.pq;
  }
  std::vector<MessageQueue> all;
  for (const auto& [mq, pq] : pqs) all.push_back(mq);
  for (const auto& [broker, mqs] : byBroker(all)) {
    auto r = co_await lockBatchMQ(*instance_, broker, options_.group, mqs);
    if (!r) {
      log::warn("{}: lockAll at {} failed: {}", clientId(), broker, r.error().message);
      continue;
    }
    std::set<MessageQueue> got(r->begin(), r->end());
    for (const auto& mq : mqs) {
      auto& pq = pqs[mq];
      if (got.count(mq)) {
        pq->locked = true;
        pq->lastLockTimestamp = nowMillis();
      } else if (pq->locked.exchange(false)) {
        log::warn("{}: lost the lock of {}", clientId(), mq.toString());
      }
    }
  }
}

asio::awaitable<void> PushConsumer::unlockQueues(const std::vector<MessageQueue>& mqs) {
  for (const auto& [broker, part] : byBroker(mqs)) {
    auto r = co_await unlockBatchMQ(*instance_, broker, options_.group, part);
    if (!r) log::warn("{}: unlock at {} failed: {}", clientId(), broker, r.error().message);
  }
}

asio::awaitable<bool> PushConsumer::waitListenerDone(const std::shared_ptr<ProcessQueue>& pq) {
  // Java waits up to 1 s for the queue's consume lock before it unlocks a removed queue.
  const std::chrono::milliseconds pause(10);
  for (int i = 0; i < 100 && pq->orderly.inListener; ++i) co_await sleepFor(pause);
  co_return !pq->orderly.inListener;
}

void PushConsumer::submitOrderly(const MessageQueue& mq, std::shared_ptr<ProcessQueue> pq,
                                 const std::vector<MessageExt>& msgs) {
  if (pq->orderly.put(msgs)) asio::post(*consumePool_, [this, mq, pq] { consumeOrderly(mq, pq); });
}

void PushConsumer::consumeOrderlyLater(const MessageQueue& mq, std::shared_ptr<ProcessQueue> pq,
                                       std::chrono::milliseconds delay, bool relock) {
  instance_->spawn([](PushConsumer* self, MessageQueue q, std::shared_ptr<ProcessQueue> p, std::chrono::milliseconds d,
                      bool lock) -> asio::awaitable<void> {
    co_await sleepFor(d);
    if (!self->running_ || p->dropped) {
      p->orderly.stop();
      co_return;
    }
    bool granted = true;
    if (lock) granted = co_await self->lockQueue(q, p);
    if (!granted) {
      self->consumeOrderlyLater(q, p, kRelockDelay, true);
      co_return;
    }
    asio::post(*self->consumePool_, [self, q, p] { self->consumeOrderly(q, p); });
  }(this, mq, std::move(pq), delay, relock));
}

bool PushConsumer::checkReconsumeTimes(const MessageQueue& mq, std::vector<MessageExt>& msgs) {
  bool suspend = false;
  for (auto& m : msgs) {
    if (m.reconsumeTimes >= maxReconsumeTimes()) {
      // Java sends a copy to %RETRY% with RECONSUME_TIME >= max, which the broker turns into a DLQ
      // message; CONSUMER_SEND_MSG_BACK with delay level -1 reaches the same DLQ directly.
      auto r = instance_->runSync(sendMessageBack(*instance_, options_.group, m, mq.brokerName, -1,
                                                  maxReconsumeTimes()));
      if (r) continue;
      log::warn("{}: send back of {} to the DLQ failed: {}", clientId(), m.offsetMsgId(), r.error().message);
    }
    suspend = true;
    m.reconsumeTimes++;
  }
  return suspend;
}

void PushConsumer::consumeOrderly(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq) {
  const bool clustering = options_.messageModel == MessageModel::CLUSTERING;
  const auto begin = std::chrono::steady_clock::now();
  const size_t batchSize = static_cast<size_t>(std::max(1, options_.consumeMessageBatchMaxSize));
  const std::string retry = retryTopic(options_.group);
  for (;;) {
    if (!running_ || pq->dropped) {
      pq->orderly.stop();
      return;
    }
    if (clustering && (!pq->locked || nowMillis() - pq->lastLockTimestamp > kLockExpiredMs)) {
      consumeOrderlyLater(mq, pq, std::chrono::milliseconds(10), true);
      return;
    }
    if (std::chrono::steady_clock::now() - begin > kMaxConsumeContinuously) {
      consumeOrderlyLater(mq, pq, std::chrono::milliseconds(10), false);
      return;
    }
    auto batch = pq->orderly.take(batchSize);
    if (batch.empty()) return;
    const std::string startTime = std::to_string(nowMillis());
    for (auto& m : batch) {
      if (auto* origin = m.property(prop::RETRY_TOPIC); origin && m.topic == retry) m.topic = *origin;
      m.putProperty(prop::CONSUME_START_TIME, startTime);
    }
    // inListener before the dropped check: a rebalance that drops the queue then waits for us.
    pq->orderly.inListener = true;
    if (pq->dropped) {
      pq->orderly.inListener = false;
      pq->orderly.rollback(batch);
      pq->orderly.stop();
      return;
    }
    ConsumeOrderlyStatus status;
    const int64_t consumeStart = nowMillis();
    try {
      status = orderlyListener_(batch, mq);
    } catch (const std::exception& e) {
      log::warn("orderly listener threw for {}: {}", mq.toString(), e.what());
      status = ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT;
    }
    stats_.consumeRT(mq.topic, nowMillis() - consumeStart);
    if (status == ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT)
      stats_.consumeFailed(mq.topic, static_cast<int64_t>(batch.size()));
    else
      stats_.consumeOK(mq.topic, static_cast<int64_t>(batch.size()));
    if (status == ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT && checkReconsumeTimes(mq, batch)) {
      pq->orderly.rollback(batch);
      pq->orderly.inListener = false;
      consumeOrderlyLater(mq, pq, options_.suspendCurrentQueueTime, false);
      return;
    }
    pq->orderly.commit();
    int64_t offset = pq->remove(batch);  // consumed (or sent to the DLQ): commit past it
    if (offset >= 0) offsets_->update(mq, offset, false);
    pq->orderly.inListener = false;
  }
}

}  // namespace rmq::client
