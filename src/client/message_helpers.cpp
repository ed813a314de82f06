#include "client/message_helpers.h"

namespace rmq::client {

void setKeys(Message& m, const std::vector<std::string>& keys) {
  std::string joined;
  for (const auto& k : keys) {
    if (!joined.empty()) joined += prop::KEY_SEPARATOR;
    joined += k;
  }
  setKeys(m, joined);
}

Message makeMessage(std::string topic, std::string tags, std::string keys, std::string body) {
  Message m;
  m.topic = std::move(topic);
  m.body = std::move(body);
  if (!tags.empty()) setTags(m, tags);
  if (!keys.empty()) setKeys(m, keys);
  return m;
}

std::string uniqKey(const Message& m) {
  auto* v = m.property(prop::UNIQ_KEY);
  return v ? *v : std::string();
}

}  // namespace rmq::client
