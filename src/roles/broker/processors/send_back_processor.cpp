// CONSUMER_SEND_MSG_BACK (36): a consumer gives a message back after a failed consumption
// (PROTOCOL.md §10.2). The broker re-appends it to %RETRY%<group> with DELAY = 3 + reconsumeTimes
// (so the schedule service redelivers it later), or to %DLQ%<group> once reconsumeTimes reaches
// maxReconsumeTimes. No wait for flush (Java marks these WAIT=false). Java runs it on the send
// executor, so it has the sends' fast failure: SendProcessor registers it behind the same
// admission (fast_failure.h), and its append runs on the store's append thread like a send's.
#include <asio/use_awaitable.hpp>
#include <random>

#include "common/log.h"
#include "common/message_codec.h"
#include "common/message_id.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/stats/broker_stats.h"
#include "roles/broker/delivery/stored_message.h"
#include "roles/broker/processors/admin_processors.h"
#include "roles/broker/processors/admin_support.h"
#include "roles/broker/processors/fast_failure.h"
#include "roles/broker/processors/send_processor.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "store/append_thread.h"
#include "store/message_store.h"

namespace rmq::broker {
using namespace admin;

namespace {

constexpr int32_t kVersionWithMaxReconsumeTimes = 121;  // header maxReconsumeTimes honoured from here
constexpr int32_t kTopicSysFlagUnitSub = 0x2;

int32_t randomQueue(int32_t queues) {
  thread_local std::mt19937 rng{std::random_device{}()};
  return queues <= 1 ? 0 : static_cast<int32_t>(rng() % static_cast<uint32_t>(queues));
}

}  // namespace

Reply consumerSendMsgBack(BrokerContext& ctx, RemotingCommand cmd) {
  auto offset = requireInt(cmd, "offset");
  if (!offset) co_return failure(offset.error());
  auto group = requireString(cmd, "group");
  if (!group) co_return failure(group.error());
  auto delayLevelField = requireInt(cmd, "delayLevel");
  if (!delayLevelField) co_return failure(delayLevelField.error());
  int32_t delayLevel = static_cast<int32_t>(*delayLevelField);

  auto groupConfig = ctx.groups.findOrAutoCreate(*group);
  if (!groupConfig) {
    co_return failure(ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST, "subscription group not exist, " + *group);
  }
  if (!perm::isWriteable(ctx.config.brokerPermission)) {
    co_return failure(ResponseCode::NO_PERMISSION, "the broker[" + ctx.config.brokerIP1 + "] sending message is forbidden");
  }
  if (groupConfig->retryQueueNums <= 0) co_return success();  // retries disabled: dropped

  std::string newTopic = topics::retryTopic(*group);
  int32_t sysFlag = optBool(cmd, "unitMode", false) ? kTopicSysFlagUnitSub : 0;
  auto topicConfig = ensureSendBackTopic(ctx, newTopic, groupConfig->retryQueueNums, sysFlag);
  if (!perm::isWriteable(topicConfig.perm)) {
    co_return failure(ResponseCode::NO_PERMISSION, "the topic[" + newTopic + "] sending message is forbidden");
  }
  int32_t queueId = randomQueue(groupConfig->retryQueueNums);

  auto view = ctx.store.lookMessageByOffset(*offset);
  if (!view) co_return failure(ResponseCode::SYSTEM_ERROR, "look message by offset failed, " + std::to_string(*offset));
  RecordView rec;
  if (parseRecord(view.bytes.data(), view.bytes.size(), rec, false) != RecordParse::Ok) {
    co_return failure(ResponseCode::SYSTEM_ERROR, "look message by offset failed, " + std::to_string(*offset));
  }
  int32_t maxReconsumeTimes = groupConfig->retryMaxTimes;
  if (cmd.version >= kVersionWithMaxReconsumeTimes && cmd.extFields.contains("maxReconsumeTimes")) {
    maxReconsumeTimes = static_cast<int32_t>(optInt(cmd, "maxReconsumeTimes", maxReconsumeTimes));
  }
  std::string delayText = "0";  // to the DLQ: Java's setDelayTimeLevel(0) stores DELAY=0
  if (rec.reconsumeTimes >= maxReconsumeTimes || delayLevel < 0) {
    newTopic = topics::dlqTopic(*group);
    queueId = 0;
    ensureSendBackTopic(ctx, newTopic, 1, 0);
    log::info("message at {} of {} goes to {} after {} reconsumes", *offset, *group, newTopic, rec.reconsumeTimes);
  } else {
    if (delayLevel == 0) delayLevel = 3 + rec.reconsumeTimes;
    delayText = std::to_string(delayLevel);
  }
  std::string encodedProps = sendBackProperties(rec, delayText);

  store::MessageToStore m = reputMessage(rec, newTopic, queueId, encodedProps);
  m.reconsumeTimes = rec.reconsumeTimes + 1;
  store::AppendResult res;
  auto appendHere = [&] { res = ctx.store.append(m); };
  const store::AppendWork append(appendHere);
  auto overload = co_await appendInQueue(ctx.config, ctx.store, append, cmd.receivedAt);
  if (overload) co_return std::move(overload);
  if (!res.ok()) {  // Java: SYSTEM_ERROR with the status's name (OS_PAGECACHE_BUSY, ...)
    co_return failure(ResponseCode::SYSTEM_ERROR, std::string(store::toString(res.status)) + " " + res.error);
  }
  // Java's incSendBackNums(group, the message's original topic (RETRY_TOPIC) or its topic).
  auto origin = findEncodedProperty(rec.properties, prop::RETRY_TOPIC);
  putStats().sentBack(origin ? *origin : rec.topic, *group);
  co_return success();
}

}  // namespace rmq::broker
