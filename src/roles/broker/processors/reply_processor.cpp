#include "roles/broker/processors/reply_processor.h"

#include <chrono>
#include <string>

#include "common/log.h"
#include "common/message.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/delivery/stored_message.h"
#include "roles/broker/processors/request_header.h"
#include "roles/broker/processors/send_processor.h"
#include "roles/broker/stats/broker_stats.h"
#include "store/message_store.h"

namespace rmq::broker {

namespace {

using net::RemotingCommand;

constexpr std::chrono::milliseconds kPushTimeout{10000};  // Java Broker2Client.callClient

struct PushOutcome {
  bool ok = false;
  std::string remark;
};

// PUSH_REPLY_MESSAGE_TO_CLIENT with Java's ReplyMessageRequestHeader (long names).
RemotingCommand makePush(const SendHeader& h, const net::Connection& from, const HostAddress& storeHost,
                         const std::string& properties, std::string body) {
  auto cmd = RemotingCommand::request(RequestCode::PUSH_REPLY_MESSAGE_TO_CLIENT);
  auto& f = cmd.extFields;
  f.set("producerGroup", h.producerGroup);
  f.set("topic", h.topic);
  f.set("defaultTopic", h.defaultTopic);
  f.set("defaultTopicQueueNums", int64_t{h.defaultTopicQueueNums});
  f.set("queueId", int64_t{h.queueId});
  f.set("sysFlag", int64_t{h.sysFlag});
  f.set("bornTimestamp", h.bornTimestamp);
  f.set("flag", int64_t{h.flag});
  f.set("properties", properties);
  f.set("reconsumeTimes", int64_t{h.reconsumeTimes});
  f.setBool("unitMode", h.unitMode);
  f.set("bornHost", peerHostAddress(from.remoteAddress()).toString());
  f.set("storeHost", storeHost.toString());
  f.set("storeTimestamp", nowMillis());
  cmd.body = std::move(body);
  return cmd;
}

}  // namespace

void ReplyProcessor::registerTo(BrokerContext& ctx) {
  auto h = [this](net::ConnectionPtr c, RemotingCommand r) { return handle(std::move(c), std::move(r)); };
  ctx.registerProcessor(RequestCode::SEND_REPLY_MESSAGE, h);
  ctx.registerProcessor(RequestCode::SEND_REPLY_MESSAGE_V2, h);
}

asio::awaitable<std::optional<RemotingCommand>> ReplyProcessor::handle(net::ConnectionPtr conn, RemotingCommand req) {
  const auto& cfg = ctx_.config;
  auto header = decodeSendHeader(req);
  if (!header) co_return sendResponse(cfg, header.error().code, header.error().message);
  const SendHeader& h = *header;
  if (cfg.startAcceptSendRequestTimeStamp > nowMillis())
    co_return sendResponse(cfg, ResponseCode::SYSTEM_ERROR,
                           "broker unable to service, until " + std::to_string(cfg.startAcceptSendRequestTimeStamp));
  SendProcessor::Target target;
  if (auto err = send_.resolveTarget(h, target)) co_return std::move(*err);

  // 1. Push to the requester (Java pushes before it stores).
  PushOutcome push;
  auto props = decodeProperties(h.properties);
  const std::string* senderId = findProperty(props, prop::REPLY_TO_CLIENT);
  if (!senderId) {
    push.remark = "reply message properties[" + std::string(prop::REPLY_TO_CLIENT) + "] is null";
    log::warn("{} is null, can not reply message", prop::REPLY_TO_CLIENT);
  } else if (auto channel = ctx_.clients.findProducerChannel(*senderId); !channel) {
    push.remark = "push reply message fail, channel of <" + *senderId + "> not found.";
    log::warn("{}", push.remark);
  } else {
    Properties pushed = props;
    setProperty(pushed, prop::PUSH_REPLY_TIME, std::to_string(nowMillis()));
    auto cmd = makePush(h, *conn, ctx_.storeHost, encodeProperties(pushed), req.body);
    auto answer = co_await channel->invoke(std::move(cmd), kPushTimeout);
    push.ok = answer && answer->code == ResponseCode::SUCCESS;
    if (!push.ok) {
      push.remark = "push reply message to " + *senderId + "fail.";  // sic, Java's text
      log::warn("push reply message to <{}> failed: {}", *senderId,
                answer ? answer->remark.value_or("code " + std::to_string(answer->code)) : answer.error().message);
    }
  }
  auto resp = push.ok ? sendResponse(cfg, ResponseCode::SUCCESS) : sendResponse(cfg, ResponseCode::SYSTEM_ERROR, push.remark);
  if (push.ok) {
    resp.extFields.set("msgId", std::string("0"));  // Java: "set to zero to avoid client decoding exception"
    resp.extFields.set("queueId", int64_t{target.queueId});
    resp.extFields.set("queueOffset", int64_t{0});
  }

  // 2. Store (properties exactly as sent: Java stores requestHeader.getProperties()).
  if (cfg.storeReplyMessageEnable && ctx_.store.isWriteable() && !ctx_.isShuttingDown()) {
    store::MessageToStore m;
    m.topic = target.topic;
    m.queueId = target.queueId;
    m.flag = h.flag;
    m.body = req.body;
    m.properties = h.properties;
    m.sysFlag = target.sysFlag;
    m.bornTimestamp = h.bornTimestamp;
    m.bornHost = peerHostAddress(conn->remoteAddress());
    m.reconsumeTimes = h.reconsumeTimes;
    auto res = ctx_.store.append(m);
    if (res.ok()) {
      putStats().stored(res.topic, res.msgNum, res.wroteBytes);  // Java: incTopicPutNums / incTopicPutSize
      resp.extFields.set("msgId", std::move(res.msgId));
      resp.extFields.set("queueId", int64_t{target.queueId});
      resp.extFields.set("queueOffset", res.queueOffset);
    } else {
      putStats().failed();
      log::warn("reply message to {} not stored: {}", target.topic, ctx_.store.remarkFor(res.status, res.error));
    }
  }
  co_return resp;
}

}  // namespace rmq::broker
