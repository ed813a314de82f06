#include "roles/broker/pop/pop_service.h"

#include <algorithm>
#include <climits>

#include <asio/use_awaitable.hpp>
#include <fmt/format.h>

#include "common/log.h"
#include "common/message_codec.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "filter/filter.h"
#include "roles/broker/broker_context.h"
#include "roles/broker/delivery/pull_request_hold.h"
#include "roles/broker/delivery/stored_message.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "roles/broker/pop/pop_codes.h"
#include "roles/broker/pop/popped_record.h"
#include "roles/broker/processors/admin_support.h"
#include "store/message_store.h"

namespace rmq::broker::pop {

namespace {
constexpr int32_t kMaxBatch = 32;
constexpr int64_t kCheckpointEveryMs = 60000;  // a checkpoint at least this often while events come
constexpr int64_t kCheckpointMinEvents = 1000;  // ... or after max(this, messages in flight) events
constexpr int64_t kDeadLetterRetryMs = 1000;    // the DLQ append failed: try again after
constexpr int64_t kIdleWakeMs = 1000;
constexpr size_t kMaxParkedPops = 100000;       // Java's maxPopPollingSize
constexpr int32_t kInitModeMax = 1;

Error invalidHandle(std::string why) { return makeError(kInvalidReceiptHandle, "receipt handle " + std::move(why)); }
}  // namespace

struct PopService::Prepared {
  PopRequest req;
  bool fifo = false;
  int32_t maxDeliveries = 17;
  int32_t readQueueNums = 0;
  std::shared_ptr<const filter::Filter> filter;  // null: every message
  store::MessageFilter storeFilter;              // empty: none
};

PopService::PopService(BrokerContext& ctx) : ctx_(ctx), log_(ctx.store) {}

PopService::~PopService() { shutdown(); }

void PopService::start() {
  if (running_.exchange(true)) return;
  {
    std::lock_guard lk(mu_);
    recovery_ = log_.recover(state_);
    nextEventOffset_ = recovery_.nextEventOffset;
    snapshotSeq_ = std::max<int64_t>(0, recovery_.snapshotSeq);
    eventsSinceCheckpoint_ = recovery_.eventsReplayed;
    lastCheckpointMs_ = nowMillis();
    rebuildTimers();
    for (const auto& [key, q] : state_.queues()) commitOffset(key, q);
    log::info("pop: recovered {} messages in flight in {} queues (snapshot {}, {} events replayed from {})",
              state_.inFlightCount(), state_.queues().size(), recovery_.snapshotSeq, recovery_.eventsReplayed,
              recovery_.replayFrom);
  }
  thread_ = std::thread([this] { run(); });
}

void PopService::shutdown() {
  if (!running_.exchange(false)) return;
  {
    std::lock_guard lk(wakeMu_);
    woken_ = true;
  }
  cv_.notify_one();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lk(mu_);
  if (eventsSinceCheckpoint_ > 0 && !ctx_.store.isSlaveRole()) maybeCheckpoint(nowMillis(), true);
  state_.clear();
  timers_.clear();
}

// ---- pop ----

Result<PopService::Prepared> PopService::prepare(PopRequest request) {
  Prepared p;
  p.req = std::move(request);
  const PopRequest& req = p.req;
  p.req.maxNums = std::clamp(req.maxNums, 1, kMaxBatch);
  if (req.invisibleTime <= 0) return makeError(ResponseCode::SYSTEM_ERROR, "invisibleTime must be positive");
  if (!perm::isReadable(ctx_.config.brokerPermission))
    return makeError(ResponseCode::NO_PERMISSION, "the broker[" + ctx_.config.brokerIP1 + "] peeking message is forbidden");
  auto group = ctx_.groups.findOrAutoCreate(req.group);
  if (!group)
    return makeError(ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST, "subscription group [" + req.group + "] does not exist");
  if (!group->consumeEnable)
    return makeError(ResponseCode::NO_PERMISSION, "subscription group no permission, " + req.group);
  p.fifo = req.fifo || group->consumeMessageOrderly;
  p.maxDeliveries = std::max(1, group->retryMaxTimes + 1);
  auto topic = ctx_.topics.find(req.topic);
  if (!topic)
    return makeError(ResponseCode::TOPIC_NOT_EXIST, "topic[" + req.topic + "] not exist, apply first please!");
  if (!perm::isReadable(topic->perm))
    return makeError(ResponseCode::NO_PERMISSION, "the topic[" + req.topic + "] peeking message is forbidden");
  p.readQueueNums = topic->readQueueNums;
  if (req.queueId >= topic->readQueueNums || req.queueId < -1)
    return makeError(ResponseCode::SYSTEM_ERROR,
                     fmt::format("queueId[{}] is illegal, topic:[{}] topicConfig.readQueueNums:[{}]", req.queueId,
                                 req.topic, topic->readQueueNums));
  if (req.expressionType == "SQL92" && !ctx_.config.enablePropertyFilter)
    return makeError(ResponseCode::SYSTEM_ERROR, "The broker does not support consumer to filter message by SQL92");
  auto f = filter::compileExpression(req.expressionType.empty() ? "TAG" : req.expressionType,
                                     req.expression.empty() ? "*" : req.expression);
  if (!f) return makeError(ResponseCode::SUBSCRIPTION_PARSE_FAILED, f.error().message);
  if (!f->matchAll()) {
    p.filter = std::make_shared<const filter::Filter>(std::move(*f));
    // The consume-queue stage (no properties) checks tags, the record stage SQL92 (as a pull).
    p.storeFilter = [f = p.filter](int64_t tagsCode, const std::string_view* props) {
      if (!props) return f->matchesTagsCode(tagsCode);
      return f->type() != filter::ExpressionType::Sql92 || f->matchesProperties(filter::RawProperties(*props));
    };
  }
  return p;
}

asio::awaitable<Result<PopResult>> PopService::pop(PopRequest req) { return popPrepared(prepare(std::move(req))); }

asio::awaitable<Result<PopResult>> PopService::popPrepared(Result<Prepared> prepared) {
  if (!prepared) co_return prepared.error();
  Prepared& p = *prepared;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max<int64_t>(0, p.req.pollTime));
  const std::function<bool()> ready = [this, &p] { return readyFor(p); };
  for (;;) {
    auto r = popOnce(p);
    if (!r || r->status != PopResult::Status::NoMessage || p.req.pollTime <= 0 || ctx_.isShuttingDown()) co_return r;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) co_return r;
    if (ctx_.pullHold.parkedPopCount() >= kMaxParkedPops) {
      r->status = PopResult::Status::PollingFull;
      co_return r;
    }
    co_await ctx_.pullHold.waitPop(p.req.topic, p.req.queueId, p.req.group, p.filter, left, ready,
                                   p.req.cancel.get());
    if (p.req.cancel && p.req.cancel->cancelled()) co_return r;  // NoMessage: the caller is gone
  }
}

Result<PopResult> PopService::popOnce(const Prepared& p) {
  std::lock_guard lk(mu_);
  if (!running_.load()) return makeError(ResponseCode::SERVICE_NOT_AVAILABLE, "POP is served by the master only");
  PopResult out;
  out.fifo = p.fifo;
  out.reviveQid = p.fifo ? kFifoReviveQid : kNormalReviveQid;
  out.invisibleTime = p.req.invisibleTime;
  const int64_t now = nowMillis();
  out.popTime = now;
  const int32_t n = p.req.queueId >= 0 ? 1 : p.readQueueNums;
  const uint32_t start = rotate_++;
  for (int32_t i = 0; i < n && static_cast<int32_t>(out.messages.size()) < p.req.maxNums; ++i) {
    int32_t qid = p.req.queueId >= 0 ? p.req.queueId : static_cast<int32_t>((start + i) % n);
    if (auto r = popQueue(p, qid, now, out); !r) {
      if (out.messages.empty()) return r.error();
      break;  // what was taken is recorded: hand it out
    }
  }
  std::stable_sort(out.messages.begin(), out.messages.end(), [](const PoppedMessage& a, const PoppedMessage& b) {
    return std::tie(a.queueId, a.queueOffset) < std::tie(b.queueId, b.queueOffset);
  });
  out.status = out.messages.empty() ? PopResult::Status::NoMessage : PopResult::Status::Found;
  popped_.fetch_add(out.messages.size(), std::memory_order_relaxed);
  return out;
}

int64_t PopService::initialOffset(const Prepared& p, int32_t queueId) {
  int64_t committed = ctx_.offsets.queryOffset(p.req.group, p.req.topic, queueId);
  if (committed >= 0) return committed;
  int64_t min = ctx_.store.minOffsetInQueue(p.req.topic, queueId);
  if (p.req.initMode != kInitModeMax || min <= 0) return std::max<int64_t>(0, min);
  return ctx_.store.maxOffsetInQueue(p.req.topic, queueId);  // a trimmed queue: from its end (MAX)
}

Result<void> PopService::popQueue(const Prepared& p, int32_t queueId, int64_t now, PopResult& out) {
  int64_t popTime = out.popTime;
  const QueueKey key{p.req.group, p.req.topic, queueId};
  PopQueue& q = state_.queue(key);
  if (q.nextOffset < 0) {
    q.nextOffset = initialOffset(p, queueId);
    // No message ever goes to %RETRY%<group> (redelivery is in place), but tools find a group by
    // that topic (consumerProgress without -g, the console's group list, consume stats' route), as
    // for a 4.x push group, whose heartbeat creates it.
    admin::ensureSendBackTopic(ctx_, topics::retryTopic(p.req.group), 1, 0);
  }
  size_t room = static_cast<size_t>(p.req.maxNums) - out.messages.size();
  PopEvent ev;
  ev.kind = PopEvent::Kind::Pop;
  ev.key = key;
  ev.popTime = popTime;
  ev.invisibleTime = p.req.invisibleTime;
  std::vector<store::ByteView> held;  // keeps the records of `bytes` alive
  std::vector<std::string_view> bytes;
  std::vector<const InFlight*> expiredLast;  // used up their deliveries: to the DLQ now
  bool takeNew = true;
  auto again = [&](const InFlight& m) {  // a delivery after the first
    if (m.deliveries >= p.maxDeliveries) {
      expiredLast.push_back(&m);
      return;
    }
    auto view = ctx_.store.lookMessageByOffset(m.commitLogOffset);
    if (!view) {
      log::error("pop: message {}@{} of {} left the store while in flight; dropped", key.topic, m.queueOffset, key.group);
      expiredLast.push_back(&m);
      return;
    }
    ev.items.push_back({m.queueOffset, m.commitLogOffset, m.deliveries + 1, popTime});
    bytes.push_back(view.bytes);
    held.push_back(std::move(view));
  };
  if (p.fifo && q.fifoBlocked(now)) {
    // The same attempt (a client retrying a lost answer) gets its batch again; others wait.
    if (p.req.attemptId.empty() || q.attemptId != p.req.attemptId) return {};
    // The new delivery needs a popTime above the batch's (the retry may come in the same ms).
    int64_t latest = 0;
    for (const auto& [qo, m] : q.inFlight) latest = std::max(latest, m.popTime);
    if (latest >= popTime) {
      if (!out.messages.empty()) return {};  // the answer's popTime is fixed already
      popTime = out.popTime = latest + 1;
      ev.popTime = popTime;
    }
    for (auto& [qo, m] : q.inFlight) {
      if (ev.items.size() >= room) break;
      auto view = ctx_.store.lookMessageByOffset(m.commitLogOffset);
      if (!view) break;
      ev.items.push_back({qo, m.commitLogOffset, m.deliveries, popTime});
      bytes.push_back(view.bytes);
      held.push_back(std::move(view));
    }
    takeNew = false;
  } else if (p.fifo) {
    // Not held: everything in flight is invisible no more; it goes first, in order.
    for (auto& [qo, m] : q.inFlight) {
      if (ev.items.size() >= room) break;
      again(m);
    }
    takeNew = ev.items.size() < room;
  } else {
    for (int64_t qo : q.due) {
      if (ev.items.size() >= room) break;
      again(q.inFlight.at(qo));
    }
  }
  for (const InFlight* m : expiredLast) {
    InFlight copy = *m;
    if (auto r = deadLetter(key, copy); !r) return r;
  }
  int64_t next = q.nextOffset;
  store::GetMessageResult read;
  if (takeNew && ev.items.size() < room) {
    int want = static_cast<int>(room - ev.items.size());
    read = ctx_.store.getMessages(key.topic, queueId, q.nextOffset, want, INT_MAX,
                                  p.storeFilter ? &p.storeFilter : nullptr);
    if (read.status != store::GetStatus::NO_MATCHED_LOGIC_QUEUE) next = read.nextBeginOffset;
    for (size_t i = 0; i < read.records.size(); ++i) {
      RecordView rec;
      if (parseRecord(read.records[i].data(), read.records[i].size(), rec, false) != RecordParse::Ok) continue;
      ev.items.push_back({read.queueOffsets[i], rec.physicalOffset, 1, popTime});
      bytes.push_back(read.records[i]);
    }
  }
  if (ev.items.empty()) {
    q.nextOffset = std::max(q.nextOffset, next);  // filtered-out messages: passed in memory only
  } else {
    ev.nextOffset = std::max(q.nextOffset, next);
    if (auto r = record(ev); !r) return r.error();
    if (p.fifo) q.attemptId = p.req.attemptId;
  }
  commitOffset(key, q);
  out.restNum += std::max<int64_t>(0, ctx_.store.maxOffsetInQueue(key.topic, queueId) - q.nextOffset) +
                 static_cast<int64_t>(q.due.size());
  if (ev.items.empty()) return {};
  int64_t startOffset = ev.items.front().queueOffset;
  for (const auto& it : ev.items) startOffset = std::min(startOffset, it.queueOffset);
  out.startOffsets[queueId] = startOffset;
  for (size_t i = 0; i < ev.items.size(); ++i) {
    const InFlight& m = q.inFlight.at(ev.items[i].queueOffset);
    auto rec = poppedRecord(bytes[i], m.deliveries);
    if (!rec) continue;
    out.messages.push_back(
        {std::move(*rec), handleFor(key, m, startOffset, p.fifo), m.deliveries, queueId, m.queueOffset, m.commitLogOffset});
  }
  return {};
}

bool PopService::readyFor(const Prepared& p) {
  std::lock_guard lk(mu_);
  const int64_t now = nowMillis();
  const int32_t n = p.req.queueId >= 0 ? 1 : p.readQueueNums;
  for (int32_t i = 0; i < n; ++i) {
    int32_t qid = p.req.queueId >= 0 ? p.req.queueId : i;
    const PopQueue* q = state_.find({p.req.group, p.req.topic, qid});
    if (!q) return true;  // never looked at: let the pop decide
    if (p.fifo ? (!q->inFlight.empty() && !q->fifoBlocked(now)) : !q->due.empty()) return true;
    if ((!p.fifo || !q->fifoBlocked(now)) && ctx_.store.maxOffsetInQueue(p.req.topic, qid) > q->nextOffset) return true;
  }
  return false;
}

// ---- ack, change, dead letter ----

Result<store::AppendResult> PopService::record(const PopEvent& e) {
  auto r = log_.append(e);
  if (!r.ok())
    return makeError(ResponseCode::SYSTEM_ERROR,
                     fmt::format("pop state not stored: {} {}", store::toString(r.status), r.error));
  nextEventOffset_ = r.queueOffset + 1;
  ++eventsSinceCheckpoint_;
  state_.apply(e);
  if (e.kind != PopEvent::Kind::Ack) {
    const QueueKey* key = &state_.queues().find(e.key)->first;
    for (const auto& it : e.items) timers_.add({e.popTime + e.invisibleTime, key, it.queueOffset, e.popTime});
    std::lock_guard wl(wakeMu_);  // the timer thread may sleep past the new earliest time
    woken_ = true;
    cv_.notify_one();
  }
  return r;
}

Result<ReceiptHandle> PopService::decodeFor(std::string_view text) {
  auto h = decodeReceiptHandle(text);
  if (!h) return invalidHandle(h.error().message.substr(std::string_view("receipt handle ").size()));
  if (h->brokerName != ctx_.config.brokerName)
    return invalidHandle(fmt::format("of broker {} (this is {})", h->brokerName, ctx_.config.brokerName));
  return h;
}

Result<InFlight> PopService::validate(const QueueKey& key, const ReceiptHandle& h, int64_t now) {
  if (!running_.load()) return makeError(ResponseCode::SERVICE_NOT_AVAILABLE, "POP is served by the master only");
  PopQueue* q = state_.find(key);
  auto m = q ? q->inFlight.find(h.queueOffset) : decltype(q->inFlight.end()){};
  if (!q || m == q->inFlight.end())
    return invalidHandle(fmt::format("of {}@{}:{} names no message in flight for {} (acked, dead-lettered or never popped)",
                                     key.topic, key.queueId, h.queueOffset, key.group));
  if (m->second.popTime != h.popTime || (h.commitLogOffset >= 0 && h.commitLogOffset != m->second.commitLogOffset))
    return invalidHandle("of an earlier delivery (the message was delivered again or its invisible time changed)");
  if (m->second.visibleAt() <= now)
    return invalidHandle(fmt::format("expired: its invisible time ended {} ms ago", now - m->second.visibleAt()));
  return m->second;
}

asio::awaitable<Result<void>> PopService::awaitStored(int64_t endOffset) {
  if (!ctx_.store.needsStoredWait()) co_return Result<void>{};
  auto st = co_await ctx_.store.asyncWaitStored(endOffset, asio::use_awaitable);
  int code = store::toResponseCode(st);
  if (code != ResponseCode::SUCCESS) co_return makeError(code, "pop state stored, not yet durable as configured");
  co_return Result<void>{};
}

Result<PopService::AcksRecorded> PopService::recordAcks(const QueueKey& key, std::vector<PopItem> items, int64_t now) {
  PopEvent ev;
  ev.kind = PopEvent::Kind::Ack;
  ev.key = key;
  ev.items = std::move(items);
  auto r = record(ev);
  if (!r) return r.error();
  const PopQueue& q = *state_.find(key);
  commitOffset(key, q);
  acked_.fetch_add(ev.items.size(), std::memory_order_relaxed);
  return AcksRecorded{r->endOffset(), !q.fifoBlocked(now)};
}

asio::awaitable<Result<void>> PopService::ack(std::string group, std::string topic, std::string handle) {
  AcksRecorded done;
  int32_t queueId = 0;
  {
    auto h = decodeFor(handle);
    if (!h) co_return h.error();
    std::lock_guard lk(mu_);
    QueueKey key{group, topic, h->queueId};
    const int64_t now = nowMillis();
    auto m = validate(key, *h, now);
    if (!m) co_return m.error();
    auto r = recordAcks(key, {{h->queueOffset, 0, 0, h->popTime}}, now);
    if (!r) co_return r.error();
    done = *r;
    queueId = h->queueId;
  }
  if (done.released) ctx_.pullHold.notifyPopDue(group, topic, queueId);
  co_return co_await awaitStored(done.endOffset);
}

asio::awaitable<Result<size_t>> PopService::ackBatch(std::string group, std::string topic, int32_t queueId,
                                                     int64_t popTime, std::vector<int64_t> offsets) {
  AcksRecorded done;
  size_t acked = 0;
  {
    std::lock_guard lk(mu_);
    if (!running_.load()) co_return makeError(ResponseCode::SERVICE_NOT_AVAILABLE, "POP is served by the master only");
    const QueueKey key{group, topic, queueId};
    const int64_t now = nowMillis();
    const PopQueue* q = state_.find(key);
    std::vector<PopItem> items;
    for (int64_t qo : offsets) {
      auto m = q ? q->inFlight.find(qo) : decltype(q->inFlight.end()){};
      if (!q || m == q->inFlight.end() || m->second.popTime != popTime || m->second.visibleAt() <= now) continue;
      if (!items.empty() && items.back().queueOffset == qo) continue;  // listed twice
      items.push_back({qo, 0, 0, popTime});
    }
    if (items.empty()) co_return size_t{0};
    acked = items.size();
    auto r = recordAcks(key, std::move(items), now);
    if (!r) co_return r.error();
    done = *r;
  }
  if (done.released) ctx_.pullHold.notifyPopDue(group, topic, queueId);
  auto stored = co_await awaitStored(done.endOffset);
  if (!stored) co_return stored.error();
  co_return acked;
}

Result<PeekResult> PopService::peek(const std::string& group, const std::string& topic, int32_t queueId,
                                    int32_t maxNums) {
  if (auto t = ctx_.topics.find(topic); t && queueId >= t->readQueueNums)
    return makeError(ResponseCode::INVALID_PARAMETER,
                     fmt::format("queueId[{}] is illegal, topic:[{}] topicConfig.readQueueNums:[{}]", queueId, topic,
                                 t->readQueueNums));
  PopRequest req;
  req.group = group;
  req.topic = topic;
  req.queueId = std::max(queueId, -1);
  req.maxNums = maxNums;
  auto p = prepare(req);
  if (!p) return p.error();
  std::lock_guard lk(mu_);
  if (!running_.load()) return makeError(ResponseCode::SERVICE_NOT_AVAILABLE, "POP is served by the master only");
  PeekResult out;
  const int32_t n = p->req.queueId >= 0 ? 1 : p->readQueueNums;
  for (int32_t i = 0; i < n; ++i) {
    const QueueKey key{group, topic, p->req.queueId >= 0 ? p->req.queueId : i};
    const PopQueue* q = state_.find(key);
    const int64_t from = q && q->nextOffset >= 0 ? q->nextOffset : initialOffset(*p, key.queueId);
    out.restNum += std::max<int64_t>(0, ctx_.store.maxOffsetInQueue(topic, key.queueId) - from);
    peekQueue(key, from, p->req.maxNums, out);
  }
  return out;
}

void PopService::peekQueue(const QueueKey& key, int64_t from, int32_t maxNums, PeekResult& out) {
  auto room = [&] { return static_cast<int32_t>(maxNums - out.records.size()); };
  if (const PopQueue* q = state_.find(key)) {
    for (int64_t qo : q->due) {
      if (room() <= 0) return;
      if (auto view = ctx_.store.lookMessageByOffset(q->inFlight.at(qo).commitLogOffset))
        out.records.emplace_back(view.bytes);
    }
  }
  if (room() <= 0) return;
  auto read = ctx_.store.getMessages(key.topic, key.queueId, from, room(), INT_MAX, nullptr);
  for (auto rec : read.records) out.records.emplace_back(rec);
}

asio::awaitable<Result<std::string>> PopService::changeInvisible(std::string group, std::string topic,
                                                                 std::string handle, int64_t invisibleTime) {
  int64_t end = 0;
  std::string next;
  {
    auto h = decodeFor(handle);
    if (!h) co_return h.error();
    if (invisibleTime <= 0) co_return makeError(ResponseCode::SYSTEM_ERROR, "invisibleTime must be positive");
    std::lock_guard lk(mu_);
    QueueKey key{group, topic, h->queueId};
    const int64_t now = nowMillis();
    auto m = validate(key, *h, now);
    if (!m) co_return m.error();
    PopEvent ev;
    ev.kind = PopEvent::Kind::Change;
    ev.key = key;
    ev.popTime = std::max(now, m->popTime + 1);  // a new delivery id, never equal to the old one
    ev.invisibleTime = invisibleTime;
    ev.items.push_back({h->queueOffset, 0, 0, h->popTime});
    auto r = record(ev);
    if (!r) co_return r.error();
    end = r->endOffset();
    const InFlight& now2 = state_.find(key)->inFlight.at(h->queueOffset);
    next = handleFor(key, now2, h->startOffset, h->reviveQid == kFifoReviveQid);
    changed_.fetch_add(1, std::memory_order_relaxed);
  }
  auto stored = co_await awaitStored(end);
  if (!stored) co_return stored.error();
  co_return next;
}

asio::awaitable<Result<void>> PopService::forwardToDeadLetter(std::string group, std::string topic, std::string handle) {
  {
    auto h = decodeFor(handle);
    if (!h) co_return h.error();
    std::lock_guard lk(mu_);
    QueueKey key{group, topic, h->queueId};
    auto m = validate(key, *h, nowMillis());
    if (!m) co_return m.error();
    if (auto r = deadLetter(key, *m); !r) co_return r.error();
  }
  co_return Result<void>{};
}

Result<void> PopService::deadLetter(const QueueKey& key, const InFlight& m) {
  auto view = ctx_.store.lookMessageByOffset(m.commitLogOffset);
  RecordView rec;
  if (view && parseRecord(view.bytes.data(), view.bytes.size(), rec, false) == RecordParse::Ok) {
    std::string dlq = topics::dlqTopic(key.group);
    admin::ensureSendBackTopic(ctx_, dlq, 1, 0);
    std::string props = sendBackProperties(rec, "0");
    store::MessageToStore msg = reputMessage(rec, dlq, 0, props);
    msg.reconsumeTimes = rec.reconsumeTimes + m.deliveries;
    auto put = ctx_.store.append(msg);
    if (!put.ok())
      return makeError(ResponseCode::SYSTEM_ERROR, fmt::format("dead letter not stored: {}", store::toString(put.status)));
    log::info("pop: {}@{}:{} of {} goes to {} after {} deliveries", key.topic, key.queueId, m.queueOffset, key.group,
              dlq, m.deliveries);
  }
  PopEvent ev;
  ev.kind = PopEvent::Kind::Ack;
  ev.key = key;
  ev.items.push_back({m.queueOffset, 0, 0, m.popTime});
  auto r = record(ev);
  if (!r) return r.error();
  PopQueue& q = *state_.find(key);
  commitOffset(key, q);
  ++q.deadLettered;
  deadLettered_.fetch_add(1, std::memory_order_relaxed);
  return {};
}

// ---- timer thread ----

void PopService::run() {
  while (running_.load()) {
    std::vector<const QueueKey*> woken;
    int64_t wait;
    {
      std::lock_guard lk(mu_);
      const int64_t now = nowMillis();
      fireDue(now, woken);
      maybeCheckpoint(now, false);
      if (timers_.size() > 2 * state_.inFlightCount() + 4096) rebuildTimers();  // mostly acked entries
      wait = std::clamp<int64_t>(timers_.nextAt() - nowMillis(), 0, kIdleWakeMs);
    }
    for (const QueueKey* k : woken) ctx_.pullHold.notifyPopDue(k->group, k->topic, k->queueId);
    std::unique_lock wl(wakeMu_);
    if (wait > 0) cv_.wait_for(wl, std::chrono::milliseconds(wait), [&] { return woken_ || !running_.load(); });
    woken_ = false;
  }
}

void PopService::fireDue(int64_t now, std::vector<const QueueKey*>& woken) {
  for (const TimerRef& t : timers_.takeDue(now)) {
    PopQueue* q = state_.find(*t.key);
    auto m = q ? q->inFlight.find(t.queueOffset) : decltype(q->inFlight.end()){};
    if (!q || m == q->inFlight.end() || m->second.popTime != t.popTime) continue;  // acked or changed since
    if (m->second.deliveries >= maxDeliveries(t.key->group)) {
      InFlight copy = m->second;
      if (auto r = deadLetter(*t.key, copy); !r) {
        log::warn("pop: {}; again in {} ms", r.error().message, kDeadLetterRetryMs);
        timers_.add({now + kDeadLetterRetryMs, t.key, t.queueOffset, t.popTime});
      }
      continue;
    }
    q->due.insert(t.queueOffset);
    redelivered_.fetch_add(1, std::memory_order_relaxed);
    if (woken.empty() || woken.back() != t.key) woken.push_back(t.key);
  }
}

void PopService::maybeCheckpoint(int64_t now, bool force) {
  if (eventsSinceCheckpoint_ == 0) return;
  bool due = eventsSinceCheckpoint_ >= std::max<int64_t>(kCheckpointMinEvents, state_.inFlightCount()) ||
             now - lastCheckpointMs_ >= kCheckpointEveryMs;
  if (!force && !due) return;
  auto parts = encodeSnapshot(state_, snapshotSeq_ + 1, nextEventOffset_);
  lastCheckpointMs_ = now;
  if (!log_.appendSnapshot(parts)) return;
  ++snapshotSeq_;
  eventsSinceCheckpoint_ = 0;
}

void PopService::checkpointNow() {
  std::lock_guard lk(mu_);
  maybeCheckpoint(nowMillis(), true);
}

void PopService::rebuildTimers() {
  timers_.clear();
  for (const auto& [key, q] : state_.queues())
    for (const auto& [qo, m] : q.inFlight)
      if (!q.due.count(qo)) timers_.add({m.visibleAt(), &key, qo, m.popTime});
}

// ---- small helpers ----

int32_t PopService::maxDeliveries(const std::string& group) const {
  auto g = ctx_.groups.find(group);
  return g ? std::max(1, g->retryMaxTimes + 1) : 17;
}

void PopService::commitOffset(const QueueKey& key, const PopQueue& q) {
  if (int64_t c = q.committedOffset(); c >= 0) ctx_.offsets.commitOffset(key.group, key.topic, key.queueId, c);
}

std::string PopService::handleFor(const QueueKey& key, const InFlight& m, int64_t startOffset, bool fifo) const {
  ReceiptHandle h;
  h.startOffset = startOffset;
  h.popTime = m.popTime;
  h.invisibleTime = m.invisibleTime;
  h.reviveQid = fifo ? kFifoReviveQid : kNormalReviveQid;
  h.brokerName = ctx_.config.brokerName;
  h.queueId = key.queueId;
  h.queueOffset = m.queueOffset;
  h.commitLogOffset = m.commitLogOffset;
  return h.encode();
}

int64_t PopService::committedOffset(const QueueKey& key) {
  std::lock_guard lk(mu_);
  const PopQueue* q = state_.find(key);
  return q ? q->committedOffset() : -1;
}

namespace {
PopQueueFigures figuresOf(const QueueKey& key, const PopQueue& q) {
  return {key, q.nextOffset, q.inFlight.size(), q.due.size(), q.deadLettered};
}
}  // namespace

std::vector<PopQueueFigures> PopService::figures() {
  std::lock_guard lk(mu_);
  std::vector<PopQueueFigures> out;
  out.reserve(state_.queues().size());
  for (const auto& [key, q] : state_.queues()) out.push_back(figuresOf(key, q));
  return out;
}

std::optional<PopQueueFigures> PopService::figures(const QueueKey& key) {
  std::lock_guard lk(mu_);
  const PopQueue* q = state_.find(key);
  if (!q) return std::nullopt;
  return figuresOf(key, *q);
}

PopStats PopService::stats() {
  std::lock_guard lk(mu_);
  PopStats s;
  s.running = running_.load();
  s.inFlight = state_.inFlightCount();
  s.timers = timers_.size();
  s.popped = popped_.load();
  s.acked = acked_.load();
  s.redelivered = redelivered_.load();
  s.deadLettered = deadLettered_.load();
  s.changed = changed_.load();
  s.snapshotSeq = snapshotSeq_;
  s.eventsSinceCheckpoint = eventsSinceCheckpoint_;
  s.recovery = recovery_;
  return s;
}

}  // namespace rmq::broker::pop
