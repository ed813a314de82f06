// PushConsumer pull loop (one coroutine per assigned queue, io thread) and consumption
// (consume pool threads): flow control, long polling, send-back / local retry, offset updates.
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/experimental/as_tuple.hpp>

#include "client/broker_api.h"
#include "client/pull_api.h"
#include "client/consumer/push_consumer.h"
#include "client/request_headers.h"
#include "common/log.h"
#include "common/response_code.h"
#include "common/wall_clock.h"

namespace rmq::client {

asio::awaitable<void> PushConsumer::sleepFor(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor, d);
  co_await t.async_wait(asio::experimental::as_tuple(asio::use_awaitable));
}

asio::awaitable<void> PushConsumer::pullLoop(MessageQueue mq, std::shared_ptr<ProcessQueue> pq, int64_t nextOffset) {
  using namespace std::chrono_literals;
  const Subscription* sub = subscription(mq.topic);
  if (!sub) co_return;
  while (running_ && !pq->dropped) {
    if (orderly() && options_.messageModel == MessageModel::CLUSTERING && !pq->locked) {
      co_await sleepFor(options_.pullTimeDelayWhenException);  // Java: pull later until locked again
      continue;
    }
    if (pq->count() > static_cast<size_t>(options_.pullThresholdForQueue) ||
        (!orderly() && pq->span() > options_.consumeConcurrentlyMaxSpan)) {
      co_await sleepFor(50ms);  // flow control: let the listener catch up
      continue;
    }
    PullMessageHeader h;
    h.consumerGroup = options_.group;
    h.topic = mq.topic;
    h.queueId = mq.queueId;
    h.queueOffset = nextOffset;
    h.maxMsgNums = options_.pullBatchSize;
    h.suspendTimeoutMillis = options_.brokerSuspendMaxTime.count();
    h.subVersion = sub->data.subVersion;
    h.brokerName = mq.brokerName;
    h.sysFlag = kPullSuspend;
    int64_t commit = options_.messageModel == MessageModel::CLUSTERING ? offsets_->readMemory(mq) : -1;
    if (commit > 0) {
      h.sysFlag |= kPullCommitOffset;
      h.commitOffset = commit;
    }
    if (options_.postSubscriptionWhenPull) {
      h.sysFlag |= kPullSubscription;
      h.subscription = sub->data.subString;
      h.expressionType = sub->data.expressionType;
    }
    const int64_t pullStart = nowMillis();
    pq->lastPullTimestamp = pullStart;
    // CommunicationMode.ASYNC in Java: each pull holds one of clientAsyncSemaphoreValue permits.
    auto r = co_await pullKernel(*instance_, pullNodes_, mq, h, options_.consumerTimeoutWhenSuspend, &sub->filter,
                                 InvokeMode::Async);
    if (!running_ || pq->dropped) co_return;
    if (r && r->status == PullStatus::FOUND) {  // Java counts found pulls only
      stats_.pullRT(mq.topic, nowMillis() - pullStart);
      if (!r->messages.empty()) stats_.pullTPS(mq.topic, static_cast<int64_t>(r->messages.size()));
    }
    if (!r) {
      auto delay = r.error().code == ResponseCode::FLOW_CONTROL ? std::chrono::milliseconds(20)
                                                                : options_.pullTimeDelayWhenException;
      log::warn("pull {} at {} failed: {} {}", mq.toString(), nextOffset, r.error().code, r.error().message);
      if (r.error().code < 0) co_await instance_->route(mq.topic, true);  // transport error: route may be stale
      co_await sleepFor(delay);
      continue;
    }
    switch (r->status) {
      case PullStatus::FOUND:
        nextOffset = r->nextBeginOffset;
        if (!r->messages.empty()) {
          pq->put(r->messages);
          submitConsume(mq, pq, std::move(r->messages));
        } else if (pq->count() == 0) {
          offsets_->update(mq, nextOffset, true);
        }
        break;
      case PullStatus::NO_NEW_MSG:
      case PullStatus::NO_MATCHED_MSG:
        nextOffset = r->nextBeginOffset;
        if (pq->count() == 0) offsets_->update(mq, nextOffset, true);  // skip filtered-out offsets
        break;
      case PullStatus::OFFSET_ILLEGAL:
        log::warn("{}: offset {} of {} illegal, moving to {}", clientId(), nextOffset, mq.toString(), r->nextBeginOffset);
        nextOffset = r->nextBeginOffset;
        offsets_->update(mq, nextOffset, false);
        co_await offsets_->persist(mq);
        break;
    }
  }
}

void PushConsumer::submitConsume(const MessageQueue& mq, std::shared_ptr<ProcessQueue> pq, std::vector<MessageExt> msgs) {
  if (orderly()) return submitOrderly(mq, std::move(pq), msgs);
  const size_t batch = static_cast<size_t>(std::max(1, options_.consumeMessageBatchMaxSize));
  for (size_t i = 0; i < msgs.size(); i += batch) {
    std::vector<MessageExt> part(std::make_move_iterator(msgs.begin() + i),
                                 std::make_move_iterator(msgs.begin() + std::min(msgs.size(), i + batch)));
    asio::post(*consumePool_, [this, mq, pq, part = std::move(part)]() mutable { consume(mq, pq, std::move(part)); });
  }
}

void PushConsumer::consume(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq, std::vector<MessageExt> msgs) {
  if (pq->dropped) return;
  const std::string retry = retryTopic(options_.group);
  const std::string startTime = std::to_string(nowMillis());
  for (auto& m : msgs) {
    if (auto* origin = m.property(prop::RETRY_TOPIC); origin && m.topic == retry) m.topic = *origin;
    m.putProperty(prop::CONSUME_START_TIME, startTime);
  }
  ConsumeStatus status;
  const int64_t consumeStart = nowMillis();
  try {
    status = listener_(msgs, mq);
  } catch (const std::exception& e) {
    log::warn("listener threw for {}: {}", mq.toString(), e.what());
    status = ConsumeStatus::RECONSUME_LATER;
  }
  stats_.consumeRT(mq.topic, nowMillis() - consumeStart);
  if (status == ConsumeStatus::CONSUME_SUCCESS) stats_.consumeOK(mq.topic, static_cast<int64_t>(msgs.size()));
  else stats_.consumeFailed(mq.topic, static_cast<int64_t>(msgs.size()));
  if (pq->dropped) return;  // the queue moved to another member: its new owner re-consumes
  std::vector<MessageExt> localRetry;
  if (status == ConsumeStatus::RECONSUME_LATER) {
    if (options_.messageModel == MessageModel::BROADCASTING) {
      for (const auto& m : msgs) log::warn("BROADCASTING, the message consume failed, drop it, {}", m.offsetMsgId());
    } else {
      for (auto& m : msgs) {
        auto r = instance_->runSync(sendMessageBack(*instance_, options_.group, m, mq.brokerName, 0,
                                                    maxReconsumeTimes()));
        if (!r) {
          log::warn("send back of {} failed ({}); retrying locally", m.offsetMsgId(), r.error().message);
          m.reconsumeTimes++;
          localRetry.push_back(m);
        }
      }
    }
  }
  std::vector<MessageExt> done;
  for (auto& m : msgs) {
    bool retrying = false;
    for (const auto& l : localRetry) retrying |= l.queueOffset == m.queueOffset;
    if (!retrying) done.push_back(std::move(m));
  }
  int64_t offset = pq->remove(done);
  if (offset >= 0 && !pq->dropped) offsets_->update(mq, offset, true);
  if (!localRetry.empty()) {
    instance_->spawn([](PushConsumer* self, MessageQueue q, std::shared_ptr<ProcessQueue> p,
                        std::vector<MessageExt> again) -> asio::awaitable<void> {
      co_await sleepFor(self->options_.localRetryDelay);
      if (self->running_ && !p->dropped) self->submitConsume(q, p, std::move(again));
    }(this, mq, pq, std::move(localRetry)));
  }
}

}  // namespace rmq::client
