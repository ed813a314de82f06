#pragma once
// Topic metadata value types shared by the broker: TopicConfig, DataVersion, permission bits
// (PROTOCOL.md §3.2, §7.5) and the system-topic names / name rules (§8.1).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace rmq::broker {

namespace perm {
inline constexpr int32_t PRIORITY = 8;
inline constexpr int32_t READ = 4;
inline constexpr int32_t WRITE = 2;
inline constexpr int32_t INHERIT = 1;
inline bool isReadable(int32_t p) { return (p & READ) != 0; }
inline bool isWriteable(int32_t p) { return (p & WRITE) != 0; }
inline bool isInherited(int32_t p) { return (p & INHERIT) != 0; }
std::string toString(int32_t p);  // "RWX"-style, as Java PermName.perm2String
}  // namespace perm

// DataVersion: changes whenever the owning table changes; equality = both fields equal.
struct DataVersion {
  int64_t timestamp = 0;
  int64_t counter = 0;
  void next();  // timestamp = now, counter++
  std::string toJson() const;  // {"counter":N,"timestamp":T}
  bool operator==(const DataVersion&) const = default;
};

enum class TopicFilterType { SingleTag, MultiTag };
const char* topicFilterTypeName(TopicFilterType t);
bool parseTopicFilterType(std::string_view s, TopicFilterType& out);

struct TopicConfig {
  std::string topicName;
  int32_t readQueueNums = 16;
  int32_t writeQueueNums = 16;
  int32_t perm = perm::READ | perm::WRITE;
  TopicFilterType topicFilterType = TopicFilterType::SingleTag;
  int32_t topicSysFlag = 0;
  bool order = false;
  // RocketMQ 5.x topic attributes (topics.json "attributes"), e.g. message.type = FIFO; 4.x
  // clients never see them.
  std::map<std::string, std::string> attributes;
  bool operator==(const TopicConfig&) const = default;
};

// Well-known topic names and the rules of Java's TopicValidator / MixAll.
namespace topics {
inline constexpr std::string_view AUTO_CREATE_TOPIC_KEY = "TBW102";
inline constexpr std::string_view SCHEDULE_TOPIC = "SCHEDULE_TOPIC_XXXX";
inline constexpr std::string_view BENCHMARK_TOPIC = "BenchmarkTest";
inline constexpr std::string_view TRANS_HALF_TOPIC = "RMQ_SYS_TRANS_HALF_TOPIC";
inline constexpr std::string_view TRANS_OP_HALF_TOPIC = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
inline constexpr std::string_view TRANS_CHECK_MAX_TIME_TOPIC = "TRANS_CHECK_MAX_TIME_TOPIC";
inline constexpr std::string_view TRACE_TOPIC = "RMQ_SYS_TRACE_TOPIC";
inline constexpr std::string_view SELF_TEST_TOPIC = "SELF_TEST_TOPIC";
inline constexpr std::string_view OFFSET_MOVED_EVENT = "OFFSET_MOVED_EVENT";
inline constexpr std::string_view REPLY_TOPIC_SUFFIX = "_REPLY_TOPIC";
inline constexpr std::string_view SYSTEM_TOPIC_PREFIX = "rmq_sys_";
inline constexpr std::string_view RETRY_GROUP_TOPIC_PREFIX = "%RETRY%";
inline constexpr std::string_view DLQ_GROUP_TOPIC_PREFIX = "%DLQ%";
inline constexpr size_t MAX_TOPIC_LENGTH = 127;

std::string retryTopic(std::string_view group);  // %RETRY%<group>
std::string dlqTopic(std::string_view group);    // %DLQ%<group>
bool isRetryTopic(std::string_view topic);
bool isDlqTopic(std::string_view topic);
// ^[%|a-zA-Z0-9_-]+$ and length <= 127 (§8.1); remark explains a failure.
bool isValidTopicName(std::string_view topic, std::string* remark = nullptr);
// Fixed system names (TopicValidator.isSystemTopic); the manager adds cluster/broker names.
bool isFixedSystemTopic(std::string_view topic);
// Topics producers may not send to (code 16).
bool isNotAllowedSendTopic(std::string_view topic);
}  // namespace topics

}  // namespace rmq::broker
