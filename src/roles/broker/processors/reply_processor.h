#pragma once
// ReplyProcessor: SEND_REPLY_MESSAGE (324, long header names) and SEND_REPLY_MESSAGE_V2 (325,
// SendMessageRequestHeaderV2 names), Java ReplyMessageProcessor (RocketMQ 4.9). A consumer's reply
// to a request message (MessageUtil.createReplyMessage, topic <cluster>_REPLY_TOPIC) is
//  1. pushed with PUSH_REPLY_MESSAGE_TO_CLIENT (326, ReplyMessageRequestHeader, PUSH_REPLY_TIME
//     added to the properties) to the producer channel whose client id is the REPLY_TO_CLIENT
//     property, awaiting the client's answer up to 10 s (Broker2Client.callClient);
//  2. then stored (properties as sent) when storeReplyMessageEnable (default true).
// The answer's code is the push outcome: SUCCESS (msgId "0", queueOffset 0 unless stored) or
// SYSTEM_ERROR with Java's remark (REPLY_TO_CLIENT missing, channel not found, push failed); a
// stored reply sets msgId/queueId/queueOffset either way. Checks (topic, queue, permissions) are
// SendProcessor's (Java msgCheck).
// Threads: handle() runs on the connection's network thread; the push is awaited, never blocked on.
#include <asio/awaitable.hpp>
#include <optional>

#include "net/connection.h"
#include "roles/broker/broker_context.h"

namespace rmq::broker {

class SendProcessor;

class ReplyProcessor {
 public:
  ReplyProcessor(BrokerContext& ctx, SendProcessor& send) : ctx_(ctx), send_(send) {}
  void registerTo(BrokerContext& ctx);  // codes 324, 325
  asio::awaitable<std::optional<net::RemotingCommand>> handle(net::ConnectionPtr conn, net::RemotingCommand req);

 private:
  BrokerContext& ctx_;
  SendProcessor& send_;
};

}  // namespace rmq::broker
