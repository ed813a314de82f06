#include "roles/broker/processors/pull_processor.h"

#include "roles/broker/processors/fast_failure.h"

#include <algorithm>
#include <climits>

#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/stats/broker_stats.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/delivery/offset_moved_event.h"
#include "roles/broker/delivery/pull_request_hold.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "store/message_store.h"

namespace rmq::broker {

using net::RemotingCommand;
using store::GetStatus;

void PullProcessor::registerTo(BrokerContext& ctx) {
  ctx.registerProcessor(RequestCode::PULL_MESSAGE,
                        [this](net::ConnectionPtr c, RemotingCommand r) { return handle(std::move(c), std::move(r)); });
}

Result<PullProcessor::FilterPtr> PullProcessor::compiled(std::string_view type, std::string_view expression) {
  std::string key;
  key.reserve(type.size() + expression.size() + 1);
  key.append(type).push_back('\n');
  key.append(expression);
  std::lock_guard lock(cacheMu_);
  if (auto it = filterCache_.find(key); it != filterCache_.end()) return it->second;
  auto f = filter::compileExpression(type, expression);
  if (!f) return f.error();
  FilterPtr ptr = f->matchAll() ? nullptr : std::make_shared<const filter::Filter>(std::move(*f));
  if (filterCache_.size() > 10000) filterCache_.clear();  // bound memory against churning expressions
  filterCache_.emplace(std::move(key), ptr);
  return ptr;
}

std::optional<RemotingCommand> PullProcessor::resolveFilter(Prepared& p) {
  const auto& h = p.h;
  std::string type, expression;
  if (h.has(pullflag::SUBSCRIPTION)) {
    type = h.expressionType.value_or("TAG");
    expression = h.subscription.value_or("*");
  } else {
    auto group = ctx_.clients.consumerGroup(h.consumerGroup);
    if (!group)
      return RemotingCommand::response(ResponseCode::SUBSCRIPTION_NOT_EXIST,
                                       "the consumer's group info not exist " + h.consumerGroup);
    // Java checks the model only here, on pulls without a subscription in the header (a push
    // consumer's usual pull), with the model its heartbeat registered.
    if (!p.consumeBroadcastEnable && group->messageModel == "BROADCASTING")
      return RemotingCommand::response(ResponseCode::NO_PERMISSION,
                                       "the consumer group[" + h.consumerGroup + "] can not consume by broadcast way");
    auto sub = group->subscriptions.find(h.topic);
    if (sub == group->subscriptions.end())
      return RemotingCommand::response(ResponseCode::SUBSCRIPTION_NOT_EXIST,
                                       "the consumer's subscription not exist " + h.topic);
    if (sub->second.subVersion < h.subVersion)
      return RemotingCommand::response(ResponseCode::SUBSCRIPTION_NOT_LATEST,
                                       "the consumer's subscription not latest");
    type = sub->second.expressionType;
    expression = sub->second.subString;
  }
  if (type == "SQL92" && !ctx_.config.enablePropertyFilter)
    return RemotingCommand::response(ResponseCode::SYSTEM_ERROR,
                                     "The broker does not support consumer to filter message by SQL92");
  auto f = compiled(type, expression);
  if (!f) return RemotingCommand::response(ResponseCode::SUBSCRIPTION_PARSE_FAILED, f.error().message);
  p.filter = *f;
  if (ctx_.config.filterSupportRetry && h.topic.starts_with(topics::RETRY_GROUP_TOPIC_PREFIX)) resolveRetryFilters(p);
  return std::nullopt;
}

// Retry messages keep their original topic in RETRY_TOPIC; Java (filterSupportRetry) applies the
// group's SQL92 subscription of that topic to them. Tag subscriptions do not filter retries.
void PullProcessor::resolveRetryFilters(Prepared& p) {
  auto group = ctx_.clients.consumerGroup(p.h.consumerGroup);
  if (!group) return;
  for (const auto& [topic, sub] : group->subscriptions) {
    if (!sub.isSql92()) continue;
    if (auto f = compiled(sub.expressionType, sub.subString); f && *f) p.retryFilters.emplace(topic, *f);
  }
}

std::optional<RemotingCommand> PullProcessor::prepare(const RemotingCommand& req, Prepared& p) {
  auto header = decodePullHeader(req);
  if (!header) return RemotingCommand::response(header.error().code, header.error().message);
  p.h = std::move(*header);
  const auto& h = p.h;
  if (!perm::isReadable(ctx_.config.brokerPermission))
    return RemotingCommand::response(ResponseCode::NO_PERMISSION, "the broker pulling message is forbidden");
  auto group = ctx_.groups.findOrAutoCreate(h.consumerGroup);
  if (!group)
    return RemotingCommand::response(ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST,
                                     "subscription group [" + h.consumerGroup + "] does not exist");
  if (!group->consumeEnable)
    return RemotingCommand::response(ResponseCode::NO_PERMISSION, "subscription group no permission, " + h.consumerGroup);
  p.groupBrokerId = group->brokerId;
  p.consumeBroadcastEnable = group->consumeBroadcastEnable;
  p.whichBrokerWhenConsumeSlowly = group->whichBrokerWhenConsumeSlowly;
  auto topic = ctx_.topics.find(h.topic);
  if (!topic)
    return RemotingCommand::response(ResponseCode::TOPIC_NOT_EXIST,
                                     "topic[" + h.topic + "] not exist, apply first please!");
  if (!perm::isReadable(topic->perm))
    return RemotingCommand::response(ResponseCode::NO_PERMISSION, "the topic[" + h.topic + "] pulling message is forbidden");
  if (h.queueId < 0 || h.queueId >= topic->readQueueNums)
    return RemotingCommand::response(ResponseCode::SYSTEM_ERROR,
                                     "queueId[" + std::to_string(h.queueId) + "] is illegal, topic:[" + h.topic +
                                         "] topicConfig.readQueueNums:[" + std::to_string(topic->readQueueNums) + "]");
  return resolveFilter(p);
}

RemotingCommand PullProcessor::readOnce(const Prepared& p, bool firstRun, bool& suspend) {
  const auto& h = p.h;
  const filter::Filter* f = p.filter.get();
  store::MessageFilter storeFilter;
  if (f || !p.retryFilters.empty()) {
    // The consume-queue stage (no properties) checks tags; the record stage SQL92, then (a retry
    // pull under filterSupportRetry) the group's SQL92 filter of the message's original topic.
    storeFilter = [f, &p](int64_t tagsCode, const std::string_view* props) {
      if (!props) return !f || f->matchesTagsCode(tagsCode);
      if (f && f->type() == filter::ExpressionType::Sql92 && !f->matchesProperties(filter::RawProperties(*props)))
        return false;
      if (p.retryFilters.empty()) return true;
      auto realTopic = findEncodedProperty(*props, prop::RETRY_TOPIC);
      auto it = realTopic ? p.retryFilters.find(*realTopic) : p.retryFilters.end();
      return it == p.retryFilters.end() || it->second->matchesProperties(filter::RawProperties(*props));
    };
  }
  auto readStart = std::chrono::steady_clock::now();
  auto r = ctx_.store.getMessages(h.topic, h.queueId, h.queueOffset, std::max(1, h.maxMsgNums), INT_MAX,
                                  storeFilter ? &storeFilter : nullptr);
  getStats().noteGetTime(std::chrono::steady_clock::now() - readStart);
  int code = pullResponseCode(r.status, h.queueOffset);
  auto resp = RemotingCommand::response(code, std::string(store::toString(r.status)));
  // suggestWhichBrokerId as Java's PullMessageProcessor (§8.5): without slaveReadEnable always
  // the master (0); with it whichBrokerWhenConsumeSlowly when the data read is cold (more than
  // accessMessageInMemoryMaxRatio of RAM behind the commit log end), else the group's brokerId.
  // A slave answers the same way (a slave without slaveReadEnable still serves, suggesting 0).
  int64_t suggest = 0;
  if (ctx_.config.slaveReadEnable) suggest = r.suggestPullingFromSlave ? p.whichBrokerWhenConsumeSlowly : p.groupBrokerId;
  if (ctx_.role.isSlave() && !ctx_.storeConfig.offsetCheckInSlave && r.status != GetStatus::FOUND) {
    // A slave without offsetCheckInSlave never corrects offsets (Java's nextOffsetCorrection keeps
    // the asked one) and turns OFFSET_MOVED into a retry at the group's broker (the master by
    // default), which may simply have data the slave has not received yet.
    if (r.status == GetStatus::NO_MESSAGE_IN_QUEUE || r.status == GetStatus::NO_MATCHED_LOGIC_QUEUE ||
        r.status == GetStatus::OFFSET_TOO_SMALL || r.status == GetStatus::OFFSET_OVERFLOW_BADLY ||
        r.status == GetStatus::OFFSET_FOUND_NULL)
      r.nextBeginOffset = h.queueOffset;
    if (code == ResponseCode::PULL_OFFSET_MOVED) {
      code = ResponseCode::PULL_RETRY_IMMEDIATELY;
      resp.code = code;
      suggest = p.groupBrokerId;
    }
  }
  resp.extFields.set("suggestWhichBrokerId", suggest);
  resp.extFields.set("nextBeginOffset", r.nextBeginOffset);
  resp.extFields.set("minOffset", r.minOffset);
  resp.extFields.set("maxOffset", r.maxOffset);
  if (code == ResponseCode::SUCCESS) {
    resp.bodySegments.reserve(r.records.size());
    for (auto rec : r.records) {  // adjacent records become one segment
      if (!resp.bodySegments.empty() && resp.bodySegments.back().data + resp.bodySegments.back().size == rec.data())
        resp.bodySegments.back().size += rec.size();
      else
        resp.bodySegments.push_back({rec.data(), rec.size()});
    }
    resp.bodyOwner = std::move(r.owner);
    getStats().found(h.consumerGroup, h.topic, static_cast<int64_t>(r.records.size()), r.totalBytes);
    getStats().noteLatency(h.consumerGroup, h.topic, h.queueId, std::chrono::steady_clock::now() - readStart);
  } else {
    getStats().miss();
    if (code == ResponseCode::PULL_OFFSET_MOVED)
      storeOffsetMovedEvent(ctx_, {h.consumerGroup, h.topic, h.queueId, h.queueOffset, r.nextBeginOffset});
  }
  suspend = firstRun && code == ResponseCode::PULL_NOT_FOUND && h.has(pullflag::SUSPEND) && !ctx_.isShuttingDown();
  if (firstRun && h.has(pullflag::COMMIT_OFFSET) && !ctx_.role.isSlave())
    ctx_.offsets.commitOffset(h.consumerGroup, h.topic, h.queueId, h.commitOffset);
  return resp;
}

asio::awaitable<std::optional<RemotingCommand>> PullProcessor::handle(net::ConnectionPtr conn, RemotingCommand req) {
  if (auto late = expiredInQueue(ctx_.config, WaitQueue::Pull, req, std::chrono::steady_clock::now()))
    return net::answered(std::move(late));
  Prepared p;
  if (auto refused = prepare(req, p)) return net::answered(std::move(refused));
  bool suspend = false;
  auto resp = readOnce(p, true, suspend);
  if (!suspend) return net::answered(std::move(resp));
  auto executor = conn->ioExecutor();
  auto later = executor ? conn->answerLater(req) : net::LaterAnswer{};
  if (!later) return parkThenRead(std::move(p), connectionParks(*conn));
  parkRecord(std::move(p), std::move(later), executor, connectionParks(*conn));
  return net::answered(std::nullopt);  // dropped unawaited: the record answers
}

std::chrono::milliseconds PullProcessor::suspendTimeout(const Prepared& p) const {
  const auto& cfg = ctx_.config;
  const int64_t ms = cfg.longPollingEnable ? std::min(p.h.suspendTimeoutMillis, cfg.brokerSuspendMaxTimeMillis)
                                           : cfg.shortPollingTimeMills;
  return std::chrono::milliseconds(std::max<int64_t>(ms, 0));
}

std::function<bool()> PullProcessor::arrivedSince(const Prepared& p) const {
  return [this, &p] { return ctx_.store.maxOffsetInQueue(p.h.topic, p.h.queueId) > p.h.queueOffset; };
}

asio::awaitable<std::optional<RemotingCommand>> PullProcessor::parkThenRead(Prepared p,
                                                                           std::shared_ptr<ParkCancel> connectionClosed) {
  // Named locals, not temporaries bound to wait()'s reference parameter inside the co_await
  // expression (GCC 12 coroutine temporaries).
  const std::function<bool()> arrived = arrivedSince(p);
  const auto timeout = suspendTimeout(p);
  co_await ctx_.pullHold.wait(p.h.topic, p.h.queueId, p.h.queueOffset, p.filter, timeout, arrived,
                              connectionClosed.get());
  if (connectionClosed->cancelled()) co_return std::nullopt;  // the connection closed: nobody to answer
  bool again = false;
  co_return readOnce(p, false, again);
}

// A parked remoting pull: what its re-read needs and who answers it.
struct PullProcessor::ParkedPull final : PullRequestHold::Parked {
  ParkedPull(PullProcessor& proc, Prepared prepared, net::LaterAnswer later)
      : processor(proc), p(std::move(prepared)), answer(std::move(later)) {}
  void resume() override { processor.resumeParked(*this); }
  PullProcessor& processor;
  Prepared p;
  net::LaterAnswer answer;
};

void PullProcessor::parkRecord(Prepared p, net::LaterAnswer answer, const asio::any_io_executor& executor,
                               std::shared_ptr<ParkCancel> connectionClosed) {
  auto pull = std::make_shared<ParkedPull>(*this, std::move(p), std::move(answer));
  pull->offset = pull->p.h.queueOffset;
  pull->filter = pull->p.filter;
  pull->cancel = std::move(connectionClosed);
  const auto timeout = suspendTimeout(pull->p);
  const std::function<bool()> arrived = arrivedSince(pull->p);
  ctx_.pullHold.park(pull, executor, pull->p.h.topic, pull->p.h.queueId, timeout, arrived);
}

void PullProcessor::resumeParked(ParkedPull& pull) {
  auto answer = std::move(pull.answer);  // the record may outlive this in the hold's lists for a moment
  if (pull.cancel && pull.cancel->cancelled()) return;  // the connection closed: `answer` ends unanswered
  bool again = false;
  answer.send(readOnce(pull.p, false, again));
}

}  // namespace rmq::broker
