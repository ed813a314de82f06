#include "client/consumer/pull_consumer.h"

#include "client/broker_api.h"
#include "client/heartbeat.h"
#include "client/request_headers.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

PullConsumer::PullConsumer(PullConsumerOptions options) : options_(std::move(options)) {
  ClientConfig cfg = options_.client;
  if (cfg.clientIp.empty()) cfg.clientIp = rmq::localIPv4();
  if (cfg.instanceName == "DEFAULT") cfg.instanceName = uniqueInstanceName();
  instance_ = ClientInstance::create(cfg, buildClientId(cfg.clientIp, cfg.instanceName, cfg.unitName));
}

PullConsumer::~PullConsumer() { shutdown(); }

Result<void> PullConsumer::start() {
  if (options_.group.empty()) return makeError(ResponseCode::SYSTEM_ERROR, "consumerGroup is empty");
  instance_->setHeartbeatBody([this] { return heartbeatBody(); });
  return instance_->start();
}

void PullConsumer::shutdown() {
  if (!instance_->running()) return;
  instance_->runSync([](PullConsumer* self) -> asio::awaitable<void> {
    for (const auto& addr : self->instance_->brokerAddrs(false))
    {
      auto cmd = makeUnregisterClient(self->clientId(), std::string(), self->options_.group);
      co_await self->instance_->invoke(addr, std::move(cmd), std::chrono::milliseconds(1000));
    }
  }(this));
  instance_->shutdown();
}

std::string PullConsumer::heartbeatBody() const {
  ConsumerData data;
  data.groupName = options_.group;
  data.pushConsumer = false;
  data.messageModel = options_.messageModel;
  return encodeHeartbeat(instance_->clientId(), {}, {data});
}

asio::awaitable<Result<std::vector<MessageQueue>>> PullConsumer::asyncFetchSubscribeMessageQueues(std::string topic) {
  instance_->watchTopic(topic);
  auto route = co_await instance_->route(topic, true);
  if (!route) co_return route.error();
  auto queues = subscribeQueues(topic, *route);
  if (queues.empty())
    co_return makeError(ResponseCode::TOPIC_NOT_EXIST, "Can not find Message Queue for this topic, " + topic);
  co_return queues;
}

asio::awaitable<Result<PullResult>> PullConsumer::pullImpl(MessageQueue mq, std::string expression,
                                                           filter::ExpressionType type, int64_t offset, int maxNums,
                                                           bool block) {
  if (offset < 0) co_return makeError(ResponseCode::SYSTEM_ERROR, "offset < 0");
  if (maxNums <= 0) co_return makeError(ResponseCode::SYSTEM_ERROR, "maxNums <= 0");
  auto f = filter::compileExpression(type, expression);
  if (!f) co_return f.error();
  PullMessageHeader h;
  h.consumerGroup = options_.group;
  h.topic = mq.topic;
  h.queueId = mq.queueId;
  h.queueOffset = offset;
  h.maxMsgNums = maxNums;
  h.sysFlag = kPullSubscription | (block ? kPullSuspend : 0);
  h.suspendTimeoutMillis = block ? options_.brokerSuspendMaxTime.count() : 0;
  h.subscription = f->type() == filter::ExpressionType::Tag ? f->tags().subString : expression;
  h.expressionType = filter::expressionTypeName(f->type());
  h.subVersion = 0;
  h.brokerName = mq.brokerName;
  auto timeout = block ? options_.consumerTimeoutWhenSuspend : options_.consumerPullTimeout;
  co_return co_await pullKernel(*instance_, pullNodes_, mq, h, timeout, &f.value());
}

asio::awaitable<Result<PullResult>> PullConsumer::asyncPull(MessageQueue mq, std::string expression, int64_t offset,
                                                            int maxNums, filter::ExpressionType type) {
  co_return co_await pullImpl(std::move(mq), std::move(expression), type, offset, maxNums, false);
}

asio::awaitable<Result<PullResult>> PullConsumer::asyncPullBlockIfNotFound(MessageQueue mq, std::string expression,
                                                                           int64_t offset, int maxNums) {
  co_return co_await pullImpl(std::move(mq), std::move(expression), filter::ExpressionType::Tag, offset, maxNums, true);
}

asio::awaitable<Result<int64_t>> PullConsumer::asyncFetchConsumeOffset(MessageQueue mq) {
  co_return co_await queryConsumerOffset(*instance_, options_.group, mq);
}

asio::awaitable<Result<void>> PullConsumer::asyncUpdateConsumeOffset(MessageQueue mq, int64_t offset) {
  co_return co_await updateConsumerOffset(*instance_, options_.group, mq, offset, false);
}

asio::awaitable<Result<int64_t>> PullConsumer::asyncMaxOffset(MessageQueue mq) {
  co_return co_await queueOffsetQuery(*instance_, RequestCode::GET_MAX_OFFSET, mq);
}

asio::awaitable<Result<int64_t>> PullConsumer::asyncMinOffset(MessageQueue mq) {
  co_return co_await queueOffsetQuery(*instance_, RequestCode::GET_MIN_OFFSET, mq);
}

asio::awaitable<Result<int64_t>> PullConsumer::asyncSearchOffset(MessageQueue mq, int64_t timestampMs) {
  co_return co_await client::searchOffset(*instance_, mq, timestampMs);
}

Result<std::vector<MessageQueue>> PullConsumer::fetchSubscribeMessageQueues(const std::string& topic) {
  return instance_->runSync(asyncFetchSubscribeMessageQueues(topic));
}
Result<PullResult> PullConsumer::pull(const MessageQueue& mq, const std::string& expression, int64_t offset,
                                      int maxNums, filter::ExpressionType type) {
  return instance_->runSync(asyncPull(mq, expression, offset, maxNums, type));
}
Result<PullResult> PullConsumer::pullBlockIfNotFound(const MessageQueue& mq, const std::string& expression,
                                                     int64_t offset, int maxNums) {
  return instance_->runSync(asyncPullBlockIfNotFound(mq, expression, offset, maxNums));
}
Result<int64_t> PullConsumer::fetchConsumeOffset(const MessageQueue& mq) {
  return instance_->runSync(asyncFetchConsumeOffset(mq));
}
Result<void> PullConsumer::updateConsumeOffset(const MessageQueue& mq, int64_t offset) {
  return instance_->runSync(asyncUpdateConsumeOffset(mq, offset));
}
Result<int64_t> PullConsumer::maxOffset(const MessageQueue& mq) { return instance_->runSync(asyncMaxOffset(mq)); }
Result<int64_t> PullConsumer::minOffset(const MessageQueue& mq) { return instance_->runSync(asyncMinOffset(mq)); }
Result<int64_t> PullConsumer::searchOffset(const MessageQueue& mq, int64_t timestampMs) {
  return instance_->runSync(asyncSearchOffset(mq, timestampMs));
}

}  // namespace rmq::client
