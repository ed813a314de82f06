#include "roles/broker/processors/client_processor.h"

#include <chrono>

#include "common/json.h"
#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"

namespace rmq::broker {

using net::RemotingCommand;

namespace {

std::string str(const rapidjson::Value& obj, const char* key, std::string_view dflt = {}) {
  auto v = json::getString(obj, key);
  return std::string(v.value_or(dflt));
}

SubscriptionData parseSubscription(const rapidjson::Value& s) {
  SubscriptionData d;
  d.topic = str(s, "topic");
  d.subString = str(s, "subString", "*");
  d.expressionType = str(s, "expressionType", "TAG");
  if (d.expressionType.empty()) d.expressionType = "TAG";
  d.subVersion = json::getInt64(s, "subVersion").value_or(0);
  d.classFilterMode = json::getBool(s, "classFilterMode").value_or(false);
  if (auto it = s.FindMember("tagsSet"); it != s.MemberEnd() && it->value.IsArray())
    for (auto& t : it->value.GetArray())
      if (t.IsString()) d.tagsSet.emplace_back(t.GetString(), t.GetStringLength());
  if (auto it = s.FindMember("codeSet"); it != s.MemberEnd() && it->value.IsArray())
    for (auto& c : it->value.GetArray())
      if (c.IsInt()) d.codeSet.push_back(c.GetInt());
  return d;
}

}  // namespace

Result<HeartbeatData> parseHeartbeat(std::string_view body) {
  rapidjson::Document doc;
  if (auto r = json::parse(body, doc); !r) return makeError(ResponseCode::SYSTEM_ERROR, "bad heartbeat body: " + r.error().message);
  if (!doc.IsObject()) return makeError(ResponseCode::SYSTEM_ERROR, "bad heartbeat body: not an object");
  HeartbeatData hb;
  hb.clientId = str(doc, "clientID");
  if (auto it = doc.FindMember("producerDataSet"); it != doc.MemberEnd() && it->value.IsArray())
    for (auto& p : it->value.GetArray())
      if (p.IsObject()) hb.producerGroups.push_back(str(p, "groupName"));
  if (auto it = doc.FindMember("consumerDataSet"); it != doc.MemberEnd() && it->value.IsArray()) {
    for (auto& c : it->value.GetArray()) {
      if (!c.IsObject()) continue;
      ConsumerRegistration reg;
      reg.group = str(c, "groupName");
      reg.consumeType = str(c, "consumeType", "CONSUME_PASSIVELY");
      reg.messageModel = str(c, "messageModel", "CLUSTERING");
      reg.consumeFromWhere = str(c, "consumeFromWhere", "CONSUME_FROM_LAST_OFFSET");
      if (auto s = c.FindMember("subscriptionDataSet"); s != c.MemberEnd() && s->value.IsArray())
        for (auto& sub : s->value.GetArray())
          if (sub.IsObject()) reg.subscriptions.push_back(parseSubscription(sub));
      hb.consumers.push_back(std::move(reg));
    }
  }
  return hb;
}

void ClientProcessor::registerTo(BrokerContext& ctx) {
  ctx.registerProcessor(RequestCode::HEART_BEAT,
                        [this](net::ConnectionPtr c, RemotingCommand r) { return heartbeat(std::move(c), std::move(r)); });
  ctx.registerProcessor(RequestCode::UNREGISTER_CLIENT,
                        [this](net::ConnectionPtr c, RemotingCommand r) { return unregister(std::move(c), std::move(r)); });
  ctx.registerProcessor(RequestCode::GET_CONSUMER_LIST_BY_GROUP,
                        [this](net::ConnectionPtr c, RemotingCommand r) { return consumerList(std::move(c), std::move(r)); });
}

asio::awaitable<std::optional<RemotingCommand>> ClientProcessor::heartbeat(net::ConnectionPtr conn, RemotingCommand req) {
  auto hb = parseHeartbeat(req.body);
  if (!hb) co_return RemotingCommand::response(hb.error().code, hb.error().message);
  ClientChannel channel{conn, hb->clientId, net::languageName(req.language), req.version,
                        std::chrono::steady_clock::now()};
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
  json::Buffer buf;
  json::Writer w(buf);
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
