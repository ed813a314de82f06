#pragma once
// Typed request headers and builders for the requests the client sends (PROTOCOL.md §2.2/§2.3).
// Shared with broker-side tests and tools: encode*/decode* are exact inverses, and decode accepts
// both SEND_MESSAGE (long names) and SEND_MESSAGE_V2/SEND_BATCH_MESSAGE (one-letter keys).
#include <cstdint>
#include <optional>
#include <string>

#include "common/result.h"
#include "net/remoting_command.h"

namespace rmq::client {

struct SendMessageHeader {
  std::string producerGroup;
  std::string topic;
  std::string defaultTopic = "TBW102";
  int32_t defaultTopicQueueNums = 4;
  int32_t queueId = -1;
  int32_t sysFlag = 0;
  int64_t bornTimestamp = 0;
  int32_t flag = 0;
  std::string properties;  // encoded properties string (§4.5)
  int32_t reconsumeTimes = 0;
  bool unitMode = false;
  std::optional<int32_t> maxReconsumeTimes;
  bool batch = false;
  std::string brokerName;  // optional "bname" / "n"
};

void encodeSendHeaderV2(const SendMessageHeader& h, net::ExtFields& out);  // keys a..n
void encodeSendHeaderV1(const SendMessageHeader& h, net::ExtFields& out);  // long names
// `v2` selects the key set (codes 310/320 use one-letter keys). Missing required fields: code 1.
Result<SendMessageHeader> decodeSendHeader(const net::ExtFields& f, bool v2);
// SEND_MESSAGE_V2 (310), or SEND_BATCH_MESSAGE (320) when h.batch.
net::RemotingCommand makeSendRequest(const SendMessageHeader& h, std::string body);

struct PullMessageHeader {
  std::string consumerGroup;
  std::string topic;
  int32_t queueId = 0;
  int64_t queueOffset = 0;
  int32_t maxMsgNums = 32;
  int32_t sysFlag = 0;
  int64_t commitOffset = 0;
  int64_t suspendTimeoutMillis = 0;
  std::string subscription;     // sent when non-empty
  int64_t subVersion = 0;
  std::string expressionType;   // sent when non-empty
  std::string brokerName;
};
// PullSysFlag bits (§4.3).
inline constexpr int32_t kPullCommitOffset = 0x1;
inline constexpr int32_t kPullSuspend = 0x2;
inline constexpr int32_t kPullSubscription = 0x4;
inline constexpr int32_t kPullClassFilter = 0x8;

void encodePullHeader(const PullMessageHeader& h, net::ExtFields& out);
Result<PullMessageHeader> decodePullHeader(const net::ExtFields& f);
net::RemotingCommand makePullRequest(const PullMessageHeader& h);

// Small request builders (header fields named as in §2.2).
net::RemotingCommand makeRouteRequest(const std::string& topic);  // GET_ROUTEINFO_BY_TOPIC
net::RemotingCommand makeQueryConsumerOffset(const std::string& group, const std::string& topic, int32_t queueId);
net::RemotingCommand makeUpdateConsumerOffset(const std::string& group, const std::string& topic, int32_t queueId,
                                              int64_t offset);
net::RemotingCommand makeQueueOffsetRequest(int code, const std::string& topic, int32_t queueId);  // 30/31/32
net::RemotingCommand makeSearchOffset(const std::string& topic, int32_t queueId, int64_t timestamp);
net::RemotingCommand makeConsumerListRequest(const std::string& group);
net::RemotingCommand makeSendBack(int64_t commitLogOffset, const std::string& group, int32_t delayLevel,
                                  const std::string& originMsgId, const std::string& originTopic,
                                  int32_t maxReconsumeTimes);
net::RemotingCommand makeUnregisterClient(const std::string& clientId, const std::string& producerGroup,
                                          const std::string& consumerGroup);

// Response helpers: an Error (code + remark) for any code other than `okCode`.
Error responseError(const net::RemotingCommand& resp);
std::optional<int64_t> headerInt(const net::RemotingCommand& resp, std::string_view key);

}  // namespace rmq::client
