#pragma once
// HEART_BEAT body (PROTOCOL.md §3.5): HeartbeatData JSON as Java clients send it (fastjson or
// standard JSON), and the SubscriptionData / consumer registration it carries. Pure parsing, no
// I/O: the ClientProcessor hands the result to the ClientManager; fuzz/ feeds it raw bytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace rmq::broker {

struct SubscriptionData {
  std::string topic;
  std::string subString = "*";
  std::string expressionType = "TAG";
  std::vector<std::string> tagsSet;
  std::vector<int32_t> codeSet;
  int64_t subVersion = 0;
  bool classFilterMode = false;
  bool isSql92() const { return expressionType == "SQL92"; }
  bool operator==(const SubscriptionData&) const = default;
};

struct ConsumerRegistration {
  std::string group;
  std::string consumeType, messageModel, consumeFromWhere;
  std::vector<SubscriptionData> subscriptions;
};

struct HeartbeatData {
  std::string clientId;
  std::vector<std::string> producerGroups;
  std::vector<ConsumerRegistration> consumers;
};

// Parses the HeartbeatData JSON body; SYSTEM_ERROR when it is not JSON or not an object.
Result<HeartbeatData> parseHeartbeat(std::string_view body);

}  // namespace rmq::broker
