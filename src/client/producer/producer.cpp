#include "client/producer/producer.h"

#include <fmt/format.h>

#include <regex>

#include "client/heartbeat.h"
#include "client/request_headers.h"
#include "common/log.h"
#include "common/message_codec.h"
#include "common/message_id.h"
#include "common/response_code.h"
#include "common/wall_clock.h"

namespace rmq::client {

namespace {

UniqIdGenerator& uniqIds(const std::string& ip) {
  static UniqIdGenerator gen([&] {
    HostAddress a;
    HostAddress::parse(ip, a);
    return a;
  }());
  return gen;
}

Result<void> checkTopic(const std::string& topic) {
  if (topic.empty()) return makeError(ResponseCode::MESSAGE_ILLEGAL, "The specified topic is blank");
  if (topic.size() > 127) return makeError(ResponseCode::MESSAGE_ILLEGAL, "The specified topic is longer than 127 characters");
  for (char c : topic)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '%' || c == '|' || c == '_' || c == '-'))
      return makeError(ResponseCode::MESSAGE_ILLEGAL,
                       fmt::format("The specified topic[{}] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$", topic));
  return {};
}

std::optional<SendStatus> sendStatusOf(int code) {
  switch (code) {
    case ResponseCode::SUCCESS: return SendStatus::SEND_OK;
    case ResponseCode::FLUSH_DISK_TIMEOUT: return SendStatus::FLUSH_DISK_TIMEOUT;
    case ResponseCode::FLUSH_SLAVE_TIMEOUT: return SendStatus::FLUSH_SLAVE_TIMEOUT;
    case ResponseCode::SLAVE_NOT_AVAILABLE: return SendStatus::SLAVE_NOT_AVAILABLE;
    default: return std::nullopt;
  }
}

}  // namespace

struct Producer::Prepared {
  std::string topic;
  std::string body;
  std::string properties;  // encoded
  std::string msgId;       // UNIQ_KEY (comma-joined for batches)
  int32_t sysFlag = 0;
  int32_t flag = 0;
  int32_t reconsumeTimes = 0;
  std::optional<int32_t> maxReconsumeTimes;
  bool batch = false;
};

MessageQueue selectByOrderId(const std::vector<MessageQueue>& queues, const Message&, int64_t orderId) {
  int64_t n = static_cast<int64_t>(queues.size());
  int64_t idx = orderId % n;
  return queues[static_cast<size_t>(idx < 0 ? -idx : idx)];
}

Producer::Producer(ProducerOptions options)
    : options_(std::move(options)), selector_(options_.sendLatencyFaultEnable) {
  ClientConfig cfg = options_.client;
  if (cfg.clientIp.empty()) cfg.clientIp = rmq::localIPv4();
  if (cfg.instanceName == "DEFAULT") cfg.instanceName = uniqueInstanceName();
  instance_ = ClientInstance::create(cfg, buildClientId(cfg.clientIp, cfg.instanceName, cfg.unitName));
}

Producer::~Producer() { shutdown(); }

Result<void> Producer::start() {
  if (options_.group.empty()) return makeError(ResponseCode::SYSTEM_ERROR, "producerGroup is empty");
  instance_->setHeartbeatBody([this] { return heartbeatBody(); });
  instance_->setMastersOnlyHeartbeat(true);
  requests_->attach(*instance_);
  return instance_->start();
}

void Producer::shutdown() {
  if (!instance_->running()) return;
  requests_->failAll(makeError(ResponseCode::SYSTEM_ERROR, "producer shut down before the reply came"));
  instance_->runSync([](Producer* self) -> asio::awaitable<void> {
    for (const auto& addr : self->instance_->brokerAddrs(true))
    {
      auto cmd = makeUnregisterClient(self->instance_->clientId(), self->options_.group, std::string());
      const std::chrono::milliseconds timeout(1000);
      co_await self->instance_->invoke(addr, std::move(cmd), timeout);
    }
  }(this));
  instance_->shutdown();
}

std::string Producer::heartbeatBody() const {
  return encodeHeartbeat(instance_->clientId(), {options_.group, "CLIENT_INNER_PRODUCER"}, {});
}

Result<Producer::Prepared> Producer::prepare(Message msg) const {
  if (auto r = checkTopic(msg.topic); !r) return r.error();
  if (msg.body.empty()) return makeError(ResponseCode::MESSAGE_ILLEGAL, "the message body length is zero");
  if (msg.body.size() > options_.maxMessageSize)
    return makeError(ResponseCode::MESSAGE_ILLEGAL,
                     fmt::format("the message body size over max value, MAX: {}", options_.maxMessageSize));
  Prepared p;
  p.topic = msg.topic;
  p.flag = msg.flag;
  if (!msg.property(prop::UNIQ_KEY)) msg.putProperty(prop::UNIQ_KEY, uniqIds(instance_->config().clientIp).next());
  if (!msg.property(prop::WAIT)) msg.putProperty(prop::WAIT, "true");
  p.msgId = *msg.property(prop::UNIQ_KEY);
  if (isRetryTopic(msg.topic)) {  // §2.3: retry bookkeeping travels in the header
    if (auto* r = msg.property(prop::RECONSUME_TIME)) p.reconsumeTimes = std::atoi(r->c_str());
    if (auto* m = msg.property(prop::MAX_RECONSUME_TIMES)) p.maxReconsumeTimes = std::atoi(m->c_str());
    msg.removeProperty(prop::RECONSUME_TIME);
    msg.removeProperty(prop::MAX_RECONSUME_TIMES);
  }
  if (msg.body.size() >= options_.compressMsgBodyOverHowmuch) {
    p.body = zlibCompress(msg.body, options_.compressLevel);
    p.sysFlag |= sysflag::COMPRESSED | sysflag::COMPRESSION_ZLIB;
  } else {
    p.body = std::move(msg.body);
  }
  if (auto* tran = msg.property(prop::TRAN_MSG); tran && *tran == "true")
    p.sysFlag |= sysflag::TRANSACTION_PREPARED_TYPE;  // a half message (transaction_producer.h)
  p.properties = encodeProperties(msg.properties);
  return p;
}

Result<Producer::Prepared> Producer::prepareBatch(std::vector<Message> msgs) const {
  if (msgs.empty()) return makeError(ResponseCode::MESSAGE_ILLEGAL, "the batch is empty");
  Prepared p;
  p.batch = true;
  p.topic = msgs.front().topic;
  size_t total = 0;
  for (auto& m : msgs) {
    if (m.topic != p.topic) return makeError(ResponseCode::MESSAGE_ILLEGAL, "all messages of a batch must share one topic");
    if (m.property(prop::DELAY)) return makeError(ResponseCode::MESSAGE_ILLEGAL, "TimeDelayLevel is not supported for batching");
    if (isRetryTopic(m.topic)) return makeError(ResponseCode::MESSAGE_ILLEGAL, "Retry Group is not supported for batching");
    if (auto r = checkTopic(m.topic); !r) return r.error();
    if (m.body.empty()) return makeError(ResponseCode::MESSAGE_ILLEGAL, "the message body length is zero");
    if (!m.property(prop::UNIQ_KEY)) m.putProperty(prop::UNIQ_KEY, uniqIds(instance_->config().clientIp).next());
    if (!p.msgId.empty()) p.msgId += ',';
    p.msgId += *m.property(prop::UNIQ_KEY);
    total += m.body.size();
  }
  p.body = encodeBatch(msgs);
  if (total > options_.maxMessageSize || p.body.size() > options_.maxMessageSize)
    return makeError(ResponseCode::MESSAGE_ILLEGAL,
                     fmt::format("the message body size over max value, MAX: {}", options_.maxMessageSize));
  p.properties = encodeProperties({{std::string(prop::WAIT), "true"}});
  return p;
}

asio::awaitable<Result<std::vector<MessageQueue>>> Producer::asyncFetchPublishQueues(std::string topic) {
  instance_->watchTopic(topic);
  auto r = co_await instance_->route(topic);
  // A cached route without a writable queue (its master was down at the last refresh) is fetched
  // again at once, as Java's tryToFindTopicPublishInfo does for a route that is not ok().
  if (r && publishQueues(topic, *r).empty()) r = co_await instance_->route(topic, true);
  const Error noRoute = makeError(ResponseCode::TOPIC_NOT_EXIST, "No route info of this topic: " + topic);
  if (r) {
    auto queues = publishQueues(topic, *r);
    if (!queues.empty()) co_return queues;
    // A known route without a writable queue (read-only perm, wipeWritePerm, master down) fails
    // the send, as Java's (haveTopicRouterInfo): only an unknown topic uses the default topic.
    co_return noRoute;
  }
  if (r.error().code != ResponseCode::TOPIC_NOT_EXIST) co_return r.error();
  // Unknown topic: send through the default topic's brokers, which auto-create it (§7.6).
  auto d = co_await instance_->route(options_.createTopicKey);
  if (d) {
    TopicRouteData route = *d;
    for (auto& qd : route.queueDatas) {
      qd.writeQueueNums = std::min(qd.writeQueueNums, options_.defaultTopicQueueNums);
      qd.readQueueNums = std::min(qd.readQueueNums, options_.defaultTopicQueueNums);
    }
    auto queues = publishQueues(topic, route);
    if (!queues.empty()) co_return queues;
  }
  co_return noRoute;
}

asio::awaitable<Result<SendResult>> Producer::sendTo(const Prepared& p, const MessageQueue& mq, Mode mode,
                                                     std::chrono::milliseconds timeout) {
  auto addr = instance_->masterAddr(mq.brokerName);
  if (!addr) {  // the group has no master in our route (e.g. mid-failover): ask again
    co_await instance_->refreshRouteAfterFailure(p.topic);
    addr = instance_->masterAddr(mq.brokerName);
    if (!addr) co_return makeError(ResponseCode::SERVICE_NOT_AVAILABLE, "The broker[" + mq.brokerName + "] not exist");
  }
  SendMessageHeader h;
  h.producerGroup = options_.group;
  h.topic = p.topic;
  h.defaultTopic = options_.createTopicKey;
  h.defaultTopicQueueNums = options_.defaultTopicQueueNums;
  h.queueId = mq.queueId;
  h.sysFlag = p.sysFlag;
  h.bornTimestamp = nowMillis();
  h.flag = p.flag;
  h.properties = p.properties;
  h.reconsumeTimes = p.reconsumeTimes;
  h.maxReconsumeTimes = p.maxReconsumeTimes;
  h.batch = p.batch;
  h.brokerName = mq.brokerName;
  auto cmd = makeSendRequest(h, p.body);
  cmd.language = net::LanguageCode::CPP;
  if (mode == Mode::Oneway) {
    auto r = co_await instance_->remoting().invokeOneway(*addr, std::move(cmd), timeout);
    if (!r) co_return r.error();
    SendResult sent;
    sent.msgId = p.msgId;
    sent.queue = mq;
    sent.queueOffset = -1;
    co_return sent;
  }
  const auto invokeMode = mode == Mode::Async ? InvokeMode::Async : InvokeMode::Sync;
  auto resp = co_await instance_->invoke(*addr, std::move(cmd), timeout, invokeMode);
  if (!resp) co_return resp.error();
  auto status = sendStatusOf(resp->code);
  if (!status) co_return responseError(*resp);
  SendResult res;
  res.status = *status;
  res.msgId = p.msgId;
  res.offsetMsgId = std::string(resp->extFields.get("msgId"));
  res.queue = mq;
  if (auto q = resp->extFields.getInt("queueId")) res.queue.queueId = static_cast<int32_t>(*q);
  res.queueOffset = resp->extFields.getInt("queueOffset").value_or(-1);
  res.regionId = std::string(resp->extFields.get("MSG_REGION", "DefaultRegion"));
  res.traceOn = resp->extFields.get("TRACE_ON", "true") != "false";
  co_return res;
}

asio::awaitable<Result<SendResult>> Producer::sendWithRetries(Prepared p, Mode mode, std::chrono::milliseconds timeout) {
  auto queues = co_await asyncFetchPublishQueues(p.topic);
  if (!queues) co_return queues.error();
  const int times = mode == Mode::Sync    ? 1 + options_.retryTimesWhenSendFailed
                    : mode == Mode::Async ? 1 + options_.retryTimesWhenSendAsyncFailed
                                          : 1;
  const auto begin = std::chrono::steady_clock::now();
  std::string lastBroker;
  std::optional<Error> lastError;
  std::optional<SendResult> lastResult;
  for (int attempt = 0; attempt < times; ++attempt) {
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - begin);
    // Java's async retries (MQClientAPIImpl.onExceptionImpl) have no time check of their own: the
    // retry calls invokeAsync with what is left, <= 0, which fails with RemotingTooMuchRequestException
    // ("invokeAsync call the addr[..] timeout", or "invokeAsyncImpl invoke too fast" while the
    // clientAsyncSemaphoreValue permits are all taken): that is what the callback gets, as in Java.
    const bool asyncRetry = mode == Mode::Async && attempt > 0;
    if (elapsed >= timeout && !asyncRetry) {
      lastError = makeError(ResponseCode::CLIENT_TIMEOUT, "sendDefaultImpl call timeout");
      break;
    }
    MessageQueue mq = selector_.select(*queues, lastBroker, nowMillis());
    const auto usedAddr = instance_->masterAddr(mq.brokerName);
    auto callStart = std::chrono::steady_clock::now();
    auto r = co_await sendTo(p, mq, mode, timeout - elapsed);
    int64_t latency = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - callStart).count();
    lastBroker = mq.brokerName;
    if (r) {
      selector_.update(mq.brokerName, latency, false, nowMillis());
      if (r->status == SendStatus::SEND_OK || !options_.retryAnotherBrokerWhenNotStoreOK) co_return r;
      lastResult = r.value();
      continue;
    }
    selector_.update(mq.brokerName, latency, true, nowMillis());
    lastError = r.error();
    log::warn("send to {} failed (attempt {}/{}): {} {}", mq.toString(), attempt + 1, times, r.error().code,
              r.error().message);
    if (!isRetryableSendCode(r.error().code, options_.addRetryResponseCodes)) co_return r;
    // The route may be stale (a failover moved the master, a demoted or fenced master answers 14,
    // a broker is gone, queues changed): refresh it now, rate-limited and shared per topic
    // (ClientInstance::refreshRouteAfterFailure), and retry on what the name server says now.
    // Without a retry left the refresh runs unawaited, for the next send.
    if (attempt + 1 >= times || std::chrono::steady_clock::now() - begin >= timeout) {
      instance_->refreshRouteAfterFailureSoon(p.topic);
      continue;
    }
    auto fresh = co_await instance_->refreshRouteAfterFailure(p.topic);
    if (!fresh) continue;
    auto q = publishQueues(p.topic, *fresh);
    if (!q.empty()) queues = std::move(q);
    // The failed address is no longer the group's master: its isolation does not apply to the new one.
    if (instance_->masterAddr(mq.brokerName) != usedAddr) selector_.faults().remove(mq.brokerName);
  }
  if (lastResult) co_return *lastResult;
  co_return *lastError;
}

asio::awaitable<Result<SendResult>> Producer::prepareAndSend(Message msg, Mode mode) {
  auto p = prepare(std::move(msg));
  if (!p) co_return p.error();
  co_return co_await sendWithRetries(std::move(p.value()), mode, options_.sendMsgTimeout);
}

asio::awaitable<Result<SendResult>> Producer::asyncSend(Message msg) { return prepareAndSend(std::move(msg), Mode::Sync); }

asio::awaitable<Result<SendResult>> Producer::asyncSend(Message msg, MessageQueue queue) {
  auto p = prepare(std::move(msg));
  if (!p) co_return p.error();
  if (p->topic != queue.topic) co_return makeError(ResponseCode::MESSAGE_ILLEGAL, "message's topic not equal mq's topic");
  co_await asyncFetchPublishQueues(queue.topic);  // makes sure broker addresses are known
  co_return co_await sendTo(p.value(), queue, Mode::Sync, options_.sendMsgTimeout);
}

asio::awaitable<Result<SendResult>> Producer::asyncSend(Message msg, MessageQueueSelector selector, int64_t arg) {
  auto queues = co_await asyncFetchPublishQueues(msg.topic);
  if (!queues) co_return queues.error();
  MessageQueue mq = selector(*queues, msg, arg);
  co_return co_await asyncSend(std::move(msg), std::move(mq));
}

asio::awaitable<Result<SendResult>> Producer::asyncSendBatch(std::vector<Message> msgs) {
  auto p = prepareBatch(std::move(msgs));
  if (!p) co_return p.error();
  co_return co_await sendWithRetries(std::move(p.value()), Mode::Sync, options_.sendMsgTimeout);
}

asio::awaitable<Result<void>> Producer::asyncSendOneway(Message msg) {
  auto p = prepare(std::move(msg));
  if (!p) co_return p.error();
  auto r = co_await sendWithRetries(std::move(p.value()), Mode::Oneway, options_.sendMsgTimeout);
  if (!r) co_return r.error();
  co_return Result<void>{};
}

Result<SendResult> Producer::send(Message msg) { return instance_->runSync(asyncSend(std::move(msg))); }
Result<SendResult> Producer::send(Message msg, MessageQueue queue) {
  return instance_->runSync(asyncSend(std::move(msg), std::move(queue)));
}
Result<SendResult> Producer::send(Message msg, MessageQueueSelector selector, int64_t arg) {
  return instance_->runSync(asyncSend(std::move(msg), std::move(selector), arg));
}
Result<SendResult> Producer::sendBatch(std::vector<Message> msgs) {
  return instance_->runSync(asyncSendBatch(std::move(msgs)));
}
Result<void> Producer::sendOneway(Message msg) { return instance_->runSync(asyncSendOneway(std::move(msg))); }
Result<std::vector<MessageQueue>> Producer::fetchPublishQueues(const std::string& topic) {
  return instance_->runSync(asyncFetchPublishQueues(topic));
}

void Producer::sendAsync(Message msg, std::function<void(Result<SendResult>)> done) {
  sendAsync(std::move(msg), std::move(done), options_.sendMsgTimeout);
}

void Producer::sendAsync(Message msg, std::function<void(Result<SendResult>)> done, std::chrono::milliseconds timeout) {
  auto p = prepare(std::move(msg));
  if (!p) {
    asio::post(instance_->io(), [done, err = p.error()] { done(err); });
    return;
  }
  instance_->spawn([](Producer* self, Prepared prepared, std::function<void(Result<SendResult>)> cb,
                      std::chrono::milliseconds timeout) -> asio::awaitable<void> {
    cb(co_await self->sendWithRetries(std::move(prepared), Mode::Async, timeout));
  }(this, std::move(p.value()), std::move(done), timeout));
}

}  // namespace rmq::client
