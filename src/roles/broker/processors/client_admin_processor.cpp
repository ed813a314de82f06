// Client-facing admin codes: connection lists, producer table, CHECK_CLIENT_CONFIG, orderly
// locks, and the calls forwarded to one consumer (GET_CONSUMER_RUNNING_INFO,
// CONSUME_MESSAGE_DIRECTLY).
#include <chrono>

#include "common/json.h"
#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "filter/filter.h"
#include "roles/broker/processors/admin_processors.h"
#include "roles/broker/processors/admin_support.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/clients/rebalance_lock_manager.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "store/message_store.h"

namespace rmq::broker {
using namespace admin;

namespace {

void writeConnection(json::Writer& w, const ClientChannel& ch) {
  w.beginObject()
      .key("clientAddr").value(ch.conn ? ch.conn->remoteAddress() : std::string())
      .key("clientId").value(ch.clientId)
      .key("language").value(ch.language)
      .key("version").value(ch.version)
      .endObject();
}

Reply consumerConnectionList(BrokerContext& ctx, RemotingCommand cmd) {
  auto group = requireString(cmd, "consumerGroup");
  if (!group) co_return failure(group.error());
  auto info = ctx.clients.consumerGroup(*group);
  if (!info || info->channels.empty()) {
    co_return failure(ResponseCode::CONSUMER_NOT_ONLINE, "the consumer group[" + *group + "] not online");
  }
  json::Writer w;
  w.beginObject().key("connectionSet").beginArray();
  for (auto& [_, ch] : info->channels) writeConnection(w, ch);
  w.endArray()
      .key("consumeFromWhere").value(info->consumeFromWhere)
      .key("consumeType").value(info->consumeType)
      .key("messageModel").value(info->messageModel)
      .key("subscriptionTable").beginObject();
  for (auto& [topic, sub] : info->subscriptions) {
    w.key(topic);
    writeSubscription(w, sub);
  }
  w.endObject().endObject();
  co_return success(w.take());
}

Reply producerConnectionList(BrokerContext& ctx, RemotingCommand cmd) {
  auto group = requireString(cmd, "producerGroup");
  if (!group) co_return failure(group.error());
  auto channels = ctx.clients.producerGroup(*group);
  if (!channels || channels->empty()) {
    co_return failure(ResponseCode::SYSTEM_ERROR, "the producer group[" + *group + "] not exist");
  }
  json::Writer w;
  w.beginObject().key("connectionSet").beginArray();
  for (auto& ch : *channels) writeConnection(w, ch);
  w.endArray().endObject();
  co_return success(w.take());
}

// ProducerTableInfo as Java's ProducerManager.getProducerTable builds it: remoteIP is Netty's
// channel.remoteAddress().toString() ("/127.0.0.1:50000"), unlike the connection lists' clientAddr.
Reply allProducerInfo(BrokerContext& ctx) {
  json::Writer w;
  w.beginObject().key("data").beginObject();
  for (auto& group : ctx.clients.producerGroups()) {
    auto channels = ctx.clients.producerGroup(group);
    if (!channels) continue;
    w.key(group).beginArray();
    for (auto& ch : *channels) {
      auto ageMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - ch.lastUpdate).count();
      w.beginObject()
          .key("clientId").value(ch.clientId)
          .key("language").value(ch.language)
          .key("lastUpdateTimestamp").value(nowMillis() - ageMs)
          .key("remoteIP").value(ch.conn ? "/" + ch.conn->remoteAddress() : std::string())
          .key("version").value(ch.version)
          .endObject();
    }
    w.endArray();
  }
  w.endObject().endObject();
  co_return success(w.take());
}

Reply checkClientConfig(BrokerContext& ctx, RemotingCommand cmd) {
  rapidjson::Document doc;
  if (auto r = rmq::json::parse(cmd.body, doc); !r || !doc.IsObject()) {
    co_return failure(ResponseCode::SYSTEM_ERROR, "bad CheckClientRequestBody");
  }
  std::string group = json::getString(doc, "group");
  if (!ctx.groups.findOrAutoCreate(group)) {
    co_return failure(ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST, "subscription group not exist");
  }
  auto sub = doc.FindMember("subscriptionData");
  if (sub == doc.MemberEnd() || !sub->value.IsObject()) co_return success();
  std::string type = json::getString(sub->value, "expressionType");
  if (type.empty() || type == "TAG") co_return success();
  if (type == "SQL92" && !ctx.config.enablePropertyFilter) {
    co_return failure(ResponseCode::SYSTEM_ERROR,
                      "The broker does not support consumer to filter message by SQL92");
  }
  auto compiled = filter::compileExpression(type, json::getString(sub->value, "subString"));
  if (!compiled) co_return failure(ResponseCode::SUBSCRIPTION_PARSE_FAILED, compiled.error().message);
  co_return success();
}

struct LockRequest {
  std::string group, clientId;
  std::vector<MessageQueueId> mqs;
};

Result<LockRequest> parseLockRequest(std::string_view body) {
  rapidjson::Document doc;
  if (auto r = rmq::json::parse(body, doc); !r) return r.error();
  if (!doc.IsObject()) return makeError(ResponseCode::SYSTEM_ERROR, "lock body is not an object");
  LockRequest req;
  req.group = json::getString(doc, "consumerGroup");
  req.clientId = json::getString(doc, "clientId");
  if (auto set = doc.FindMember("mqSet"); set != doc.MemberEnd() && set->value.IsArray()) {
    for (auto& mq : set->value.GetArray()) {
      req.mqs.push_back({json::getString(mq, "topic"), json::getString(mq, "brokerName"),
                         static_cast<int32_t>(json::getInt(mq, "queueId"))});
    }
  }
  return req;
}

Reply lockBatch(RebalanceLockManager& locks, RemotingCommand cmd) {
  auto req = parseLockRequest(cmd.body);
  if (!req) co_return failure(req.error());
  auto locked = locks.tryLockBatch(req->group, req->mqs, req->clientId);
  json::Writer w;
  w.beginObject().key("lockOKMQSet").beginArray();
  for (auto& mq : locked) {
    w.beginObject().key("brokerName").value(mq.brokerName).key("queueId").value(mq.queueId)
        .key("topic").value(mq.topic).endObject();
  }
  w.endArray().endObject();
  co_return success(w.take());
}

Reply unlockBatch(RebalanceLockManager& locks, RemotingCommand cmd) {
  auto req = parseLockRequest(cmd.body);
  if (!req) co_return failure(req.error());
  locks.unlockBatch(req->group, req->mqs, req->clientId);
  co_return success();
}

// Forwards `request` to the consumer `clientId` of `group` and relays its answer.
asio::awaitable<RemotingCommand> forwardToConsumer(BrokerContext& ctx, const std::string& group,
                                                   const std::string& clientId, RemotingCommand request) {
  auto info = ctx.clients.consumerGroup(group);
  if (info) {
    for (auto& [_, ch] : info->channels) {
      if (ch.clientId != clientId || !ch.conn) continue;
      auto r = co_await ch.conn->invoke(std::move(request), std::chrono::milliseconds(5000));
      if (!r) co_return failure(ResponseCode::SYSTEM_ERROR, "invoke consumer failed: " + r.error().message);
      RemotingCommand relay = std::move(*r);
      relay.flag = 0;
      co_return relay;
    }
  }
  co_return failure(ResponseCode::SYSTEM_ERROR, "The Consumer <" + group + "> <" + clientId + "> not online");
}

Reply consumerRunningInfo(BrokerContext& ctx, RemotingCommand cmd) {
  auto group = requireString(cmd, "consumerGroup");
  if (!group) co_return failure(group.error());
  auto clientId = requireString(cmd, "clientId");
  if (!clientId) co_return failure(clientId.error());
  auto fwd = RemotingCommand::request(RequestCode::GET_CONSUMER_RUNNING_INFO);
  fwd.extFields = cmd.extFields;
  co_return co_await forwardToConsumer(ctx, *group, *clientId, std::move(fwd));
}

Reply consumeMessageDirectly(BrokerContext& ctx, RemotingCommand cmd) {
  auto group = requireString(cmd, "consumerGroup");
  if (!group) co_return failure(group.error());
  std::string clientId = optString(cmd, "clientId");
  auto fwd = RemotingCommand::request(RequestCode::CONSUME_MESSAGE_DIRECTLY);
  fwd.extFields = cmd.extFields;
  auto view = ctx.store.lookMessageByMsgId(optString(cmd, "msgId"));
  if (!view) co_return failure(ResponseCode::SYSTEM_ERROR, "can not find message by msgId " + optString(cmd, "msgId"));
  fwd.body.assign(view.bytes);
  fwd.extFields.set("brokerName", ctx.config.brokerName);  // the client builds the MessageQueue with it
  co_return co_await forwardToConsumer(ctx, *group, clientId, std::move(fwd));
}

}  // namespace

void registerClientAdminProcessors(BrokerContext& ctx) {
  BrokerContext* c = &ctx;
  auto locks = std::make_shared<RebalanceLockManager>(std::chrono::milliseconds(ctx.config.rebalanceLockMaxLiveTime));
  ctx.registerProcessor(RequestCode::GET_CONSUMER_CONNECTION_LIST,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return consumerConnectionList(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::GET_PRODUCER_CONNECTION_LIST,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return producerConnectionList(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::GET_ALL_PRODUCER_INFO,
                        [c](net::ConnectionPtr, RemotingCommand) { return allProducerInfo(*c); });
  ctx.registerProcessor(RequestCode::CHECK_CLIENT_CONFIG,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return checkClientConfig(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::LOCK_BATCH_MQ,
                        [locks](net::ConnectionPtr, RemotingCommand cmd) { return lockBatch(*locks, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::UNLOCK_BATCH_MQ,
                        [locks](net::ConnectionPtr, RemotingCommand cmd) { return unlockBatch(*locks, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::GET_CONSUMER_RUNNING_INFO,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return consumerRunningInfo(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::CONSUME_MESSAGE_DIRECTLY,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return consumeMessageDirectly(*c, std::move(cmd)); });
}

}  // namespace rmq::broker
