#pragma once
// Typed request headers of the broker-core codes (PROTOCOL.md §2.2, §2.3), decoded from extFields
// with Java's rules: a missing or unparsable @CFNotNull field is an error (SYSTEM_ERROR, remark
// "the custom field <name> is null"), optional fields keep their defaults.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"
#include "net/remoting_command.h"

namespace rmq::broker {

// Collects the first missing required field; callers check error() once at the end.
class HeaderReader {
 public:
  explicit HeaderReader(const net::ExtFields& f) : f_(f) {}
  std::string str(std::string_view key, bool required = true);
  std::optional<std::string> optStr(std::string_view key) const;
  int64_t i64(std::string_view key, bool required = true, int64_t dflt = 0);
  int32_t i32(std::string_view key, bool required = true, int32_t dflt = 0) {
    return static_cast<int32_t>(i64(key, required, dflt));
  }
  bool boolean(std::string_view key, bool dflt = false) const;
  bool ok() const { return missing_.empty(); }
  Error error() const;

 private:
  const net::ExtFields& f_;
  std::string missing_;
};

struct SendHeader {
  std::string producerGroup, topic, defaultTopic;
  int32_t defaultTopicQueueNums = 4;
  int32_t queueId = -1;
  int32_t sysFlag = 0;
  int64_t bornTimestamp = 0;
  int32_t flag = 0;
  std::string properties;
  int32_t reconsumeTimes = 0;
  bool unitMode = false;
  bool batch = false;
  std::optional<int32_t> maxReconsumeTimes;
};
// Codes 10/324 (long names) and 310/320/325 (SendMessageRequestHeaderV2 one-letter names).
Result<SendHeader> decodeSendHeader(const net::RemotingCommand& req);

namespace pullflag {
inline constexpr int32_t COMMIT_OFFSET = 0x1;
inline constexpr int32_t SUSPEND = 0x2;
inline constexpr int32_t SUBSCRIPTION = 0x4;
inline constexpr int32_t CLASS_FILTER = 0x8;
}  // namespace pullflag

struct PullHeader {
  std::string consumerGroup, topic;
  int32_t queueId = 0;
  int64_t queueOffset = 0;
  int32_t maxMsgNums = 32;
  int32_t sysFlag = 0;
  int64_t commitOffset = 0;
  int64_t suspendTimeoutMillis = 0;
  std::optional<std::string> subscription;
  int64_t subVersion = 0;
  std::optional<std::string> expressionType;
  bool has(int32_t bit) const { return (sysFlag & bit) != 0; }
};
Result<PullHeader> decodePullHeader(const net::RemotingCommand& req);

}  // namespace rmq::broker
