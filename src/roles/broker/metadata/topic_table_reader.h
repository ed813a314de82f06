#pragma once
// A streaming (SAX) reader of a TopicConfigSerializeWrapper in standard JSON, the shape topics.json
// has when Java or rmqnode wrote it: no DOM, each topic goes straight into its TopicConfig, so a
// 100,000-topic file (20 MB) loads in a fraction of the DOM parse's time and memory. Keys it does
// not know (topicQueueMappingInfoMap, ...) are skipped; 5.x's "attributes" are read. Text that is not
// standard JSON (fastjson's unquoted keys) gives nullopt: the caller then takes the tolerant path
// (TopicConfigManager::decode).
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "roles/broker/metadata/topic_config.h"

namespace rmq::broker {

std::optional<std::pair<DataVersion, std::vector<TopicConfig>>> readTopicTableFast(std::string_view text);

}  // namespace rmq::broker
