#include "client/consumer/pull_consumer.h"

#include <chrono>

#include "client/broker_api.h"
#include "client/consumer/consumer_status.h"
#include "client/consumer/running_info.h"
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
  offsets_ = std::make_unique<RemoteOffsetStore>(*instance_, options_.group);
}

PullConsumer::~PullConsumer() { shutdown(); }

Result<void> PullConsumer::start() {
  if (options_.group.empty()) return makeError(ResponseCode::SYSTEM_ERROR, "consumerGroup is empty");
  instance_->setHeartbeatBody([this] { return heartbeatBody(); });
  startTimestamp_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count();
  registerServerRequests();
  return instance_->start();
}

void PullConsumer::registerServerRequests() {
  auto& d = instance_->remoting().dispatcher();
  registerConsumerStatus(d, options_.group, *offsets_);
  d.registerProcessor(RequestCode::GET_CONSUMER_RUNNING_INFO,
                      [this](net::ConnectionPtr, net::RemotingCommand) -> asio::awaitable<std::optional<net::RemotingCommand>> {
                        RunningInfoParts parts;  // Java DefaultMQPullConsumerImpl.consumerRunningInfo
                        parts.properties = {
                            {"PROP_CONSUMER_START_TIMESTAMP", std::to_string(startTimestamp_)},
                            {"consumerGroup", options_.group},
                            {"messageModel", messageModelName(options_.messageModel)},
                            {"brokerSuspendMaxTimeMillis", std::to_string(options_.brokerSuspendMaxTime.count())},
                            {"consumerTimeoutMillisWhenSuspend", std::to_string(options_.consumerTimeoutWhenSuspend.count())},
                            {"consumerPullTimeoutMillis", std::to_string(options_.consumerPullTimeout.count())}};
                        addInstanceProperties(parts, *instance_, false);
                        auto resp = net::RemotingCommand::response(ResponseCode::SUCCESS);
                        resp.body = encodeRunningInfo(parts);
                        co_return resp;
                      });
  d.registerProcessor(RequestCode::CONSUME_MESSAGE_DIRECTLY,
                      [this](net::ConnectionPtr, net::RemotingCommand) -> asio::awaitable<std::optional<net::RemotingCommand>> {
                        // Java casts the group's consumer to a push consumer and fails (SYSTEM_ERROR).
                        auto resp = net::RemotingCommand::response(ResponseCode::SYSTEM_ERROR);
                        resp.remark = "consumer group " + options_.group +
                                      " is a pull consumer (CONSUME_ACTIVELY): messages cannot be consumed directly";
                        co_return resp;
                      });
}

void PullConsumer::shutdown() {
  if (!instance_->running()) return;
  instance_->runSync([](PullConsumer* self) -> asio::awaitable<void> {
    for (const auto& addr : self->instance_->brokerAddrs(false))
    {
      auto cmd = makeUnregisterClient(self->clientId(), std::string(), self->options_.group);
      const std::chrono::milliseconds timeout(1000);
      co_await self->instance_->invoke(addr, std::move(cmd), timeout);
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
  auto r = co_await queryConsumerOffset(*instance_, options_.group, mq);
  if (r && *r >= 0) offsets_->update(mq, *r, false);
  co_return r;
}

asio::awaitable<Result<void>> PullConsumer::asyncUpdateConsumeOffset(MessageQueue mq, int64_t offset) {
  offsets_->update(mq, offset, false);
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
