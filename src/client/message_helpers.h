#pragma once
// Convenience setters on rmq::Message for the fields Java's Message has as bean properties.
#include <string>
#include <string_view>
#include <vector>

#include "common/message.h"

namespace rmq::client {

inline void setTags(Message& m, std::string_view tags) { m.putProperty(prop::TAGS, tags); }
inline void setKeys(Message& m, std::string_view keys) { m.putProperty(prop::KEYS, keys); }
void setKeys(Message& m, const std::vector<std::string>& keys);  // joined with ' '
inline void setDelayTimeLevel(Message& m, int level) { m.putProperty(prop::DELAY, std::to_string(level)); }
inline void setWaitStoreMsgOK(Message& m, bool wait) { m.putProperty(prop::WAIT, wait ? "true" : "false"); }
Message makeMessage(std::string topic, std::string tags, std::string keys, std::string body);
// Uniq id (UNIQ_KEY) of a sent or received message; empty when absent.
std::string uniqKey(const Message& m);

}  // namespace rmq::client
