#include "client/types.h"

#include <fmt/format.h>

namespace rmq::client {

std::string MessageQueue::toString() const {
  return fmt::format("MessageQueue [topic={}, brokerName={}, queueId={}]", topic, brokerName, queueId);
}

const char* sendStatusName(SendStatus s) {
  switch (s) {
    case SendStatus::SEND_OK: return "SEND_OK";
    case SendStatus::FLUSH_DISK_TIMEOUT: return "FLUSH_DISK_TIMEOUT";
    case SendStatus::FLUSH_SLAVE_TIMEOUT: return "FLUSH_SLAVE_TIMEOUT";
    case SendStatus::SLAVE_NOT_AVAILABLE: return "SLAVE_NOT_AVAILABLE";
  }
  return "?";
}

const char* pullStatusName(PullStatus s) {
  switch (s) {
    case PullStatus::FOUND: return "FOUND";
    case PullStatus::NO_NEW_MSG: return "NO_NEW_MSG";
    case PullStatus::NO_MATCHED_MSG: return "NO_MATCHED_MSG";
    case PullStatus::OFFSET_ILLEGAL: return "OFFSET_ILLEGAL";
  }
  return "?";
}

const char* messageModelName(MessageModel m) {
  return m == MessageModel::BROADCASTING ? "BROADCASTING" : "CLUSTERING";
}

const char* consumeFromWhereName(ConsumeFromWhere c) {
  switch (c) {
    case ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET: return "CONSUME_FROM_LAST_OFFSET";
    case ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET: return "CONSUME_FROM_FIRST_OFFSET";
    case ConsumeFromWhere::CONSUME_FROM_TIMESTAMP: return "CONSUME_FROM_TIMESTAMP";
  }
  return "?";
}

}  // namespace rmq::client
