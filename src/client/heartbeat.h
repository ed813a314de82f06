#pragma once
// HeartbeatData (HEART_BEAT body, PROTOCOL.md §3.5) and the SubscriptionData it carries.
#include <cstdint>
#include <string>
#include <vector>

#include "client/types.h"
#include "filter/filter.h"

namespace rmq::client {

struct SubscriptionData {
  std::string topic;
  std::string subString = "*";
  std::string expressionType = "TAG";
  std::vector<std::string> tags;
  std::vector<int32_t> codes;
  int64_t subVersion = 0;
};
// From a compiled filter; subVersion = now in ms (monotonic per process).
SubscriptionData makeSubscriptionData(const std::string& topic, const filter::Filter& f);

struct ConsumerData {
  std::string groupName;
  bool pushConsumer = true;  // CONSUME_PASSIVELY vs CONSUME_ACTIVELY
  MessageModel messageModel = MessageModel::CLUSTERING;
  ConsumeFromWhere consumeFromWhere = ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;
  std::vector<SubscriptionData> subscriptions;
};

std::string encodeHeartbeat(const std::string& clientId, const std::vector<std::string>& producerGroups,
                            const std::vector<ConsumerData>& consumers);
// One SubscriptionData object (also used by CHECK_CLIENT_CONFIG and running-info bodies).
std::string encodeSubscriptionData(const SubscriptionData& s);

}  // namespace rmq::client
