#pragma once
// SendMessage (a batch of messages, each stored on its own) and RecallMessage, on the broker's
// put path (SendProcessor::put through MessagingDeps::put: the same checks, auto-creation,
// half messages, durability wait as a remoting SEND). Per message:
//  * body size (<= maxMessageSize: MESSAGE_BODY_TOO_LARGE; empty: MESSAGE_BODY_EMPTY);
//  * the topic's `message.type` (none = NORMAL; MIXED = any; a topic this broker does not have
//    yet = NORMAL, as auto-creation makes it) against the message's type:
//    MESSAGE_PROPERTY_CONFLICT_WITH_TYPE with the proxy's text;
//  * mapping to a 4.x message (message_mapping.h); producer group = topic; a GZIP body stored
//    as zlib with COMPRESSED (gzipBodyToStored), so 4.x consumers read it too;
//  * the queue: FIFO -> Guava consistentHash(messageGroup.hashCode(), writeQueueNums) as the
//    proxy (one group stays on one queue), else the put path's random write queue; the client's
//    queue_id is ignored (the Node client only ever names queue 0);
//  * outcome -> v2 code (v2_status.h); message_id = transaction_id = UNIQ_KEY, offset = queue
//    offset; a DELAY message gets a recall handle (Java's v1 format, base64url of
//    "v1 <topic> <brokerName> <deliverMs> <messageId>").
// The top-level status is the single entry's, or MULTIPLE_RESULTS when entries differ.
#include <asio/awaitable.hpp>

#include "apache/rocketmq/v2/service.pb.h"
#include "roles/broker/messaging/messaging_deps.h"
#include "roles/broker/messaging/v2_status.h"
#include "roles/broker/messaging/transaction_table.h"

namespace rmq::broker::messaging {

// Guava Hashing.consistentHash(input, buckets).
int32_t consistentHash(int64_t input, int32_t buckets);

std::string buildRecallHandle(std::string_view topic, std::string_view brokerName, int64_t deliverMs,
                              std::string_view messageId);
struct RecallHandle {
  std::string topic, brokerName, messageId;
  int64_t deliverMs = 0;
};
std::optional<RecallHandle> parseRecallHandle(std::string_view handle);

class SendService {
 public:
  SendService(MessagingDeps& deps, TransactionTable& txs) : deps_(deps), txs_(txs) {}
  asio::awaitable<void> send(const v2::SendMessageRequest& req, std::string peer, v2::SendMessageResponse& resp);
  asio::awaitable<void> recall(const v2::RecallMessageRequest& req, std::string peer, v2::RecallMessageResponse& resp);

 private:
  asio::awaitable<v2::SendResultEntry> sendOne(const v2::Message& m, const HostAddress& born);
  std::optional<v2::Status> checkType(const v2::Message& m, int32_t& writeQueues) const;

  MessagingDeps& deps_;
  TransactionTable& txs_;
};

}  // namespace rmq::broker::messaging
