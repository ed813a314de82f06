#include "roles/broker/metadata/topic_config.h"

#include <chrono>

#include "roles/broker/metadata/json_text.h"

namespace rmq::broker {

std::string perm::toString(int32_t p) {
  std::string s = "---";
  if (isReadable(p)) s[0] = 'R';
  if (isWriteable(p)) s[1] = 'W';
  if (isInherited(p)) s[2] = 'X';
  return s;
}

void DataVersion::next() {
  timestamp = std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
  ++counter;
}

std::string DataVersion::toJson() const {
  json::Writer w;
  w.beginObject().key("counter").value(counter).key("timestamp").value(timestamp).endObject();
  return w.take();
}

const char* topicFilterTypeName(TopicFilterType t) {
  return t == TopicFilterType::MultiTag ? "MULTI_TAG" : "SINGLE_TAG";
}

bool parseTopicFilterType(std::string_view s, TopicFilterType& out) {
  if (s == "SINGLE_TAG") {
    out = TopicFilterType::SingleTag;
  } else if (s == "MULTI_TAG") {
    out = TopicFilterType::MultiTag;
  } else {
    return false;
  }
  return true;
}

namespace topics {

std::string retryTopic(std::string_view group) {
  return std::string(RETRY_GROUP_TOPIC_PREFIX) + std::string(group);
}

std::string dlqTopic(std::string_view group) {
  return std::string(DLQ_GROUP_TOPIC_PREFIX) + std::string(group);
}

bool isRetryTopic(std::string_view t) { return t.starts_with(RETRY_GROUP_TOPIC_PREFIX); }
bool isDlqTopic(std::string_view t) { return t.starts_with(DLQ_GROUP_TOPIC_PREFIX); }

bool isValidTopicName(std::string_view topic, std::string* remark) {
  auto fail = [&](const char* why) {
    if (remark) *remark = why;
    return false;
  };
  if (topic.empty()) return fail("The specified topic is blank.");
  if (topic.size() > MAX_TOPIC_LENGTH) return fail("The specified topic is longer than topic max length.");
  for (char c : topic) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '%' || c == '|' || c == '_' || c == '-';
    if (!ok) return fail("The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$");
  }
  return true;
}

bool isFixedSystemTopic(std::string_view t) {
  return t == AUTO_CREATE_TOPIC_KEY || t == SCHEDULE_TOPIC || t == BENCHMARK_TOPIC ||
         t == TRANS_HALF_TOPIC || t == TRANS_OP_HALF_TOPIC || t == TRANS_CHECK_MAX_TIME_TOPIC ||
         t == TRACE_TOPIC || t == SELF_TEST_TOPIC || t == OFFSET_MOVED_EVENT ||
         t.starts_with(SYSTEM_TOPIC_PREFIX);
}

bool isNotAllowedSendTopic(std::string_view t) {
  return t == SCHEDULE_TOPIC || t == TRANS_HALF_TOPIC || t == TRANS_OP_HALF_TOPIC ||
         t == TRANS_CHECK_MAX_TIME_TOPIC || t == SELF_TEST_TOPIC || t == OFFSET_MOVED_EVENT;
}

}  // namespace topics
}  // namespace rmq::broker
