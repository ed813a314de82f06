#pragma once
// Plain value types of the client API: message queues, send/pull results, consumer enums.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "common/message.h"

namespace rmq::client {

struct MessageQueue {
  std::string topic;
  std::string brokerName;
  int32_t queueId = 0;

  // Java MessageQueue.compareTo order: topic, brokerName, queueId (used by allocation).
  bool operator<(const MessageQueue& o) const {
    return std::tie(topic, brokerName, queueId) < std::tie(o.topic, o.brokerName, o.queueId);
  }
  bool operator==(const MessageQueue& o) const = default;
  std::string toString() const;  // "MessageQueue [topic=T, brokerName=b, queueId=0]"
};

enum class SendStatus { SEND_OK, FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE };
const char* sendStatusName(SendStatus s);

struct SendResult {
  SendStatus status = SendStatus::SEND_OK;
  std::string msgId;        // UNIQ_KEY (comma-joined for batches)
  std::string offsetMsgId;  // broker's offset msgId (§5.1)
  MessageQueue queue;
  int64_t queueOffset = 0;
  std::string regionId;
  bool traceOn = true;
};

enum class PullStatus { FOUND, NO_NEW_MSG, NO_MATCHED_MSG, OFFSET_ILLEGAL };
const char* pullStatusName(PullStatus s);

struct PullResult {
  PullStatus status = PullStatus::NO_NEW_MSG;
  int64_t nextBeginOffset = 0;
  int64_t minOffset = 0;
  int64_t maxOffset = 0;
  int64_t suggestWhichBrokerId = 0;
  std::vector<MessageExt> messages;  // FOUND only, after the client-side tag re-check
};

enum class MessageModel { CLUSTERING, BROADCASTING };
enum class ConsumeFromWhere { CONSUME_FROM_LAST_OFFSET, CONSUME_FROM_FIRST_OFFSET, CONSUME_FROM_TIMESTAMP };
enum class ConsumeStatus { CONSUME_SUCCESS, RECONSUME_LATER };
const char* messageModelName(MessageModel m);
const char* consumeFromWhereName(ConsumeFromWhere c);

// The retry topic of a consumer group.
inline std::string retryTopic(const std::string& group) { return "%RETRY%" + group; }
inline bool isRetryTopic(const std::string& topic) { return topic.rfind("%RETRY%", 0) == 0; }

}  // namespace rmq::client
