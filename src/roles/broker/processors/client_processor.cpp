#include "roles/broker/processors/client_processor.h"

#include "roles/broker/processors/fast_failure.h"

#include <chrono>

#include "common/json.h"
#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"

namespace rmq::broker {

using net::RemotingCommand;

void ClientProcessor::registerTo(BrokerContext& ctx) {
  ctx.registerProcessor(RequestCode::HEART_BEAT,
                        [this](net::ConnectionPtr c, RemotingCommand r) { return heartbeat(std::move(c), std::move(r)); });
  ctx.registerProcessor(RequestCode::UNREGISTER_CLIENT,
                        [this](net::ConnectionPtr c, RemotingCommand r) { return unregister(std::move(c), std::move(r)); });
  ctx.registerProcessor(RequestCode::GET_CONSUMER_LIST_BY_GROUP,
                        [this](net::ConnectionPtr c, RemotingCommand r) { return consumerList(std::move(c), std::move(r)); });
}

asio::awaitable<std::optional<RemotingCommand>> ClientProcessor::heartbeat(net::ConnectionPtr conn, RemotingCommand req) {
  const auto now = std::chrono::steady_clock::now();
  if (auto late = expiredInQueue(ctx_.config, WaitQueue::Heartbeat, req, now)) co_return std::move(late);
  auto hb = parseHeartbeat(req.body);
  if (!hb) co_return RemotingCommand::response(hb.error().code, hb.error().message);
  ClientChannel channel{conn, hb->clientId, net::languageName(req.language), req.version, now};
  for (auto& reg : hb->consumers) {
    if (auto group = ctx_.groups.findOrAutoCreate(reg.group)) {
      int32_t sysFlag = 0;  // unit mode flags are not used by 4.x clients in practice
      ctx_.topics.createTopicInSendMessageBackMethod(topics::retryTopic(reg.group), group->retryQueueNums,
                                                     perm::READ | perm::WRITE, sysFlag);
    }
    ctx_.clients.registerConsumer(reg, channel);
  }
  for (auto& group : hb->producerGroups) ctx_.clients.registerProducer(group, channel);
  auto resp = RemotingCommand::response(ResponseCode::SUCCESS);
  resp.version = net::kCurrentVersion;
  co_return resp;
}

asio::awaitable<std::optional<RemotingCommand>> ClientProcessor::unregister(net::ConnectionPtr conn, RemotingCommand req) {
  if (auto g = req.extFields.find("producerGroup"); g && !g->empty()) ctx_.clients.unregisterProducer(*g, conn->id());
  if (auto g = req.extFields.find("consumerGroup"); g && !g->empty()) ctx_.clients.unregisterConsumer(*g, conn->id());
  if (req.isOneway()) co_return std::nullopt;
  co_return RemotingCommand::response(ResponseCode::SUCCESS);
}

asio::awaitable<std::optional<RemotingCommand>> ClientProcessor::consumerList(net::ConnectionPtr, RemotingCommand req) {
  const std::string* group = req.extFields.find("consumerGroup");
  if (!group) co_return RemotingCommand::response(ResponseCode::SYSTEM_ERROR, "the custom field <consumerGroup> is null");
  auto ids = ctx_.clients.consumerIds(*group);
  if (ids.empty())
    co_return RemotingCommand::response(ResponseCode::SYSTEM_ERROR, "no consumer for this group, " + *group);
  rmq::json::Buffer buf;
  rmq::json::Writer w(buf);
  w.StartObject();
  w.Key("consumerIdList");
  w.StartArray();
  for (auto& id : ids) w.String(id.c_str(), static_cast<rapidjson::SizeType>(id.size()));
  w.EndArray();
  w.EndObject();
  auto resp = RemotingCommand::response(ResponseCode::SUCCESS);
  resp.body.assign(buf.GetString(), buf.GetSize());
  co_return resp;
}

}  // namespace rmq::broker
