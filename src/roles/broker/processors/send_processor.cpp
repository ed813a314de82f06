#include "roles/broker/processors/send_processor.h"

#include <asio/use_awaitable.hpp>
#include <chrono>
#include <random>

#include "common/log.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/stats/broker_stats.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "roles/broker/transaction/transactional_message.h"
#include "roles/broker/transaction/transactional_message_service.h"
#include "store/append_thread.h"
#include "store/message_store.h"

namespace rmq::broker {

namespace {

using net::RemotingCommand;

int32_t randomInt() {
  thread_local std::minstd_rand rng(std::random_device{}());
  return static_cast<int32_t>(rng() % 99999999);
}

}  // namespace

RemotingCommand sendResponse(const BrokerConfig& cfg, int code, std::optional<std::string> remark) {
  auto r = RemotingCommand::response(code, std::move(remark));
  r.extFields.set("MSG_REGION", cfg.regionId);
  r.extFields.setBool("TRACE_ON", cfg.traceOn);
  return r;
}

void SendProcessor::registerTo(BrokerContext& ctx) {
  auto h = [this](net::ConnectionPtr c, RemotingCommand r) { return handle(std::move(c), std::move(r)); };
  ctx.registerProcessor(RequestCode::SEND_MESSAGE, h);
  ctx.registerProcessor(RequestCode::SEND_MESSAGE_V2, h);
  ctx.registerProcessor(RequestCode::SEND_BATCH_MESSAGE, h);
  ctx.registerProcessor(RequestCode::CONSUMER_SEND_MSG_BACK,
                        [this](net::ConnectionPtr, RemotingCommand r) { return handleSendBack(std::move(r)); });
}

std::optional<RemotingCommand> SendProcessor::checkRetryTopic(const SendHeader& h, Target& target) {
  std::string_view group = std::string_view(h.topic).substr(topics::RETRY_GROUP_TOPIC_PREFIX.size());
  auto groupConfig = ctx_.groups.findOrAutoCreate(group);
  if (!groupConfig)
    return sendResponse(ctx_.config, ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST,
                        "subscription group not exist, " + std::string(group));
  int32_t maxTimes = h.maxReconsumeTimes.value_or(groupConfig->retryMaxTimes);
  if (h.reconsumeTimes < maxTimes) return std::nullopt;
  // Too many redeliveries: dead-letter queue, queue 0, no delay.
  target.topic = topics::dlqTopic(group);
  target.queueId = 0;
  ctx_.topics.createTopicInSendMessageBackMethod(target.topic, 1, perm::READ | perm::WRITE, 0);
  return std::nullopt;
}

std::optional<RemotingCommand> SendProcessor::resolveTarget(const SendHeader& h, Target& target) {
  const auto& cfg = ctx_.config;
  if (cfg.startAcceptSendRequestTimeStamp > nowMillis())
    return sendResponse(cfg, ResponseCode::SYSTEM_ERROR, "broker unable to service, until " +
                                                             std::to_string(cfg.startAcceptSendRequestTimeStamp));
  std::string why;
  if (!topics::isValidTopicName(h.topic, &why))
    return sendResponse(cfg, ResponseCode::MESSAGE_ILLEGAL, why.empty() ? "illegal topic " + h.topic : why);
  if (topics::isNotAllowedSendTopic(h.topic))
    return sendResponse(cfg, ResponseCode::NO_PERMISSION, "Sending message to topic[" + h.topic + "] is forbidden.");

  auto topicConfig = ctx_.topics.find(h.topic);
  if (!topicConfig) {
    topicConfig = ctx_.topics.createTopicInSendMessageMethod(h.topic, h.defaultTopic, h.defaultTopicQueueNums,
                                                              h.unitMode ? 1 : 0);
    if (!topicConfig && topics::isRetryTopic(h.topic))
      topicConfig = ctx_.topics.createTopicInSendMessageBackMethod(h.topic, 1, perm::READ | perm::WRITE, 0);
    if (!topicConfig)
      return sendResponse(cfg, ResponseCode::TOPIC_NOT_EXIST,
                          "topic[" + h.topic + "] not exist, apply first please!");
  }
  if (!perm::isWriteable(cfg.brokerPermission) && topicConfig->order)
    return sendResponse(cfg, ResponseCode::NO_PERMISSION,
                        "the broker[" + cfg.brokerIP1 + "] sending message is forbidden");
  int32_t queueCount = std::max(topicConfig->writeQueueNums, topicConfig->readQueueNums);
  if (h.queueId >= queueCount)
    return sendResponse(cfg, ResponseCode::SYSTEM_ERROR,
                        "request queueId[" + std::to_string(h.queueId) + "] is illegal, topic has " +
                            std::to_string(queueCount) + " queues");
  target.topic = h.topic;
  target.queueId = h.queueId >= 0 ? h.queueId : randomInt() % std::max(1, topicConfig->writeQueueNums);
  target.sysFlag = h.sysFlag;
  if (topicConfig->topicFilterType == TopicFilterType::MultiTag) target.sysFlag |= sysflag::MULTI_TAGS;
  if (topics::isRetryTopic(h.topic)) {
    if (h.batch)
      return sendResponse(cfg, ResponseCode::MESSAGE_ILLEGAL, "batch request does not support retry group " + h.topic);
    if (auto err = checkRetryTopic(h, target)) return err;
  }
  return std::nullopt;
}

// Java answers all three with SERVICE_NOT_AVAILABLE (DefaultMessageStore.checkStoreStatus); the
// remark says which one it is.
std::string SendProcessor::notWriteableReason() const {
  if (ctx_.isShuttingDown()) return "broker is shutting down";
  if (ctx_.role.isSlave())
    return "broker[" + ctx_.config.brokerAddr() + "] is a slave (brokerRole=SLAVE): messages are put to its master";
  if (!ctx_.role.mayAcknowledge())  // failover: the lease is not proven for long enough (failover/README.md)
    return "broker[" + ctx_.config.brokerAddr() + "] cannot prove its mastership of epoch " +
           std::to_string(ctx_.role.epoch()) + " (etcd lease not renewed in time): send to another broker";
  if (!ctx_.role.acceptsSends())  // failover: draining for a planned switchover
    return "broker[" + ctx_.config.brokerAddr() + "] hands its mastership over (planned switchover): send to another broker";
  return ctx_.store.remarkFor(store::PutStatus::SERVICE_NOT_AVAILABLE);
}

// SYNC_FLUSH and SYNC_MASTER waits run at once, each with its own timeout; the replication status
// wins when both fail (§8.2, Java's thenCombine).
asio::awaitable<int> SendProcessor::awaitDurability(int64_t endOffset) {
  if (!ctx_.store.needsStoredWait()) co_return ResponseCode::SUCCESS;
  auto st = co_await ctx_.store.asyncWaitStored(endOffset, asio::use_awaitable);
  co_return store::toResponseCode(st);
}

asio::awaitable<std::optional<RemotingCommand>> SendProcessor::handleSendBack(RemotingCommand req) {
  const auto start = std::chrono::steady_clock::now();
  bool waitForLock = false;
  if (auto busy = admission_.check(req, start, waitForLock)) co_return std::move(*busy);
  if (waitForLock) {
    auto busy = co_await admission_.waitForLock(req.receivedAt);
    if (busy) co_return std::move(*busy);
  }
  auto answer = co_await consumerSendMsgBack(ctx_, std::move(req));
  co_return answer;
}

asio::awaitable<std::optional<RemotingCommand>> SendProcessor::handle(net::ConnectionPtr conn, RemotingCommand req) {
  const auto& cfg = ctx_.config;
  const auto putStart = std::chrono::steady_clock::now();  // also the start of this send (fast failure)
  bool waitForLock = false;
  if (auto busy = admission_.check(req, putStart, waitForLock)) co_return std::move(*busy);
  if (waitForLock) {  // another append holds the commit-log lock (a stalled disk?): park, do not queue
    auto busy = co_await admission_.waitForLock(req.receivedAt);
    if (busy) co_return std::move(*busy);
  }
  auto header = decodeSendHeader(req);
  if (!header) co_return sendResponse(cfg, header.error().code, header.error().message);
  HostAddress born = peerHostAddress(conn->remoteAddress());
  PutOutcome out = co_await put(*header, req.body, born, putStart, req.receivedAt);
  if (out.code != ResponseCode::SUCCESS && out.msgId.empty()) co_return sendResponse(cfg, out.code, out.remark);
  auto resp = sendResponse(cfg, out.code, out.remark.empty() ? std::nullopt : std::optional<std::string>(out.remark));
  resp.extFields.set("msgId", std::move(out.msgId));
  resp.extFields.set("queueId", static_cast<int64_t>(out.queueId));
  resp.extFields.set("queueOffset", out.queueOffset);
  co_return resp;
}

store::AppendResult SendProcessor::appendNow(const SendHeader& h, const Target& target, std::string_view body,
                                            std::string_view props, std::optional<std::string_view> wait,
                                            HostAddress born, bool half) {
  if (h.batch) {
    store::BatchToStore b{target.topic, target.queueId, target.sysFlag, h.bornTimestamp, born,
                          h.reconsumeTimes, body, props};
    return ctx_.store.appendBatch(b);
  }
  store::MessageToStore m;
  m.topic = target.topic;
  m.queueId = target.queueId;
  m.flag = h.flag;
  m.body = body;
  m.properties = props;
  m.sysFlag = target.sysFlag;
  m.bornTimestamp = h.bornTimestamp;
  m.bornHost = born;
  m.reconsumeTimes = h.reconsumeTimes;
  m.waitProperty = wait;
  return half ? ctx_.transactions->prepare(m) : ctx_.store.append(m);
}

asio::awaitable<SendProcessor::PutOutcome> SendProcessor::put(const SendHeader& h, std::string_view body,
                                                              HostAddress born,
                                                              std::chrono::steady_clock::time_point putStart,
                                                              std::chrono::steady_clock::time_point receivedAt) {
  const auto& cfg = ctx_.config;
  if (ctx_.isShuttingDown() || !ctx_.store.isWriteable() || !ctx_.role.acceptsSends())
    co_return PutOutcome{ResponseCode::SERVICE_NOT_AVAILABLE, notWriteableReason()};
  Target target;
  if (auto err = resolveTarget(h, target)) co_return PutOutcome{err->code, err->remark.value_or("")};

  std::string props;  // in the frame: the append thread reads it while this coroutine waits
  std::optional<std::string_view> wait;
  bool waitStore = h.batch ? buildBatchProperties(h.properties, cfg.brokerClusterName, props)
                           : buildStoredProperties(h.properties, cfg.brokerClusterName, props, wait);
  const bool half = tx::isHalfMessage(props);
  if (half && (cfg.rejectTransactionMessage || h.batch || !ctx_.transactions)) {
    co_return PutOutcome{ResponseCode::NO_PERMISSION,
                         "the broker[" + cfg.brokerIP1 + "] sending transaction message is forbidden"};
  }
  store::AppendResult res;
  auto appendHere = [&] { res = appendNow(h, target, body, props, wait, born, half); };
  const store::AppendWork append(appendHere);  // referenced from this frame: no allocation
  // On the store's append thread: a stalled append holds that thread, not this one.
  auto overload = co_await appendInQueue(cfg, ctx_.store, append, receivedAt);
  if (overload) co_return PutOutcome{overload->code, overload->remark.value_or("")};
  if (!res.ok()) {
    putStats().failed();
    co_return PutOutcome{store::toResponseCode(res.status), ctx_.store.remarkFor(res.status, res.error)};
  }
  // Java: incTopicPutNums / incTopicPutSize of the topic stored to: SCHEDULE_TOPIC_XXXX for a delayed
  // message (its real topic counts when it is delivered), RMQ_SYS_TRANS_HALF_TOPIC for a half message.
  putStats().stored(res.topic, res.msgNum, res.wroteBytes);
  // Not `waitStore ? co_await ... : SUCCESS`: GCC 12 mishandles co_await inside ?: (temporaries).
  int code = ResponseCode::SUCCESS;
  if (waitStore) code = co_await awaitDurability(res.endOffset());
  putStats().notePutTime(std::chrono::steady_clock::now() - putStart);
  // Failover: no SEND_OK from a master whose lease may have run out while the send waited.
  if (code == ResponseCode::SUCCESS && !ctx_.role.mayAcknowledge())
    co_return PutOutcome{ResponseCode::SERVICE_NOT_AVAILABLE, notWriteableReason()};
  PutOutcome out{code, {}};
  out.msgId = std::move(res.msgId);
  out.queueId = target.queueId;
  out.queueOffset = res.queueOffset;
  out.physicalOffset = res.physicalOffset;
  co_return out;
}

}  // namespace rmq::broker
