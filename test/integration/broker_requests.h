#pragma once
// Broker requests for integration tests, over the client library's header encoders: SEND_MESSAGE
// (V1/V2/batch), PULL_MESSAGE, HEART_BEAT, UPDATE_AND_CREATE_TOPIC; pull answers decoded.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/message.h"
#include "net/remoting_command.h"

namespace rmq::test {

struct SendSpec {
  std::string topic;
  std::string body = "hello";
  std::string tags;
  std::string keys;
  int32_t queueId = 0;
  int code = 310;  // 10 or 310 (320 = use batchRequest)
  std::string defaultTopic = "TBW102";
  std::vector<std::pair<std::string, std::string>> extraProps;
  int32_t reconsumeTimes = 0;
  std::optional<int32_t> maxReconsumeTimes;
  int64_t bornTimestamp = 1700000000000;
};
net::RemotingCommand sendRequest(const SendSpec& s);
net::RemotingCommand batchRequest(const std::string& topic, int32_t queueId, const std::vector<Message>& msgs);

struct PullSpec {
  std::string group = "cg";
  std::string topic;
  int32_t queueId = 0;
  int64_t offset = 0;
  int32_t maxMsgNums = 32;
  int32_t sysFlag = 0x4;  // SUBSCRIPTION (expression carried in the request)
  std::string subscription = "*";
  std::string expressionType = "TAG";
  int64_t suspendMillis = 0;
  int64_t commitOffset = 0;
};
net::RemotingCommand pullRequest(const PullSpec& p);
// Records of a pull answer body (decoded).
std::vector<MessageExt> pulledMessages(const net::RemotingCommand& resp);
int64_t extInt(const net::RemotingCommand& resp, std::string_view key);  // -999 when absent

// HEART_BEAT for one consumer group subscribed to `topics` with "*" (plus producer groups), of
// message model CLUSTERING or BROADCASTING.
net::RemotingCommand heartbeatRequest(const std::string& clientId, const std::string& consumerGroup,
                                      const std::vector<std::string>& topics,
                                      const std::vector<std::string>& producerGroups = {},
                                      bool broadcasting = false);

// UPDATE_AND_CREATE_TOPIC with `queues` read and write queues.
net::RemotingCommand createTopicRequest(const std::string& topic, int queues, int perm = 6);

}  // namespace rmq::test
