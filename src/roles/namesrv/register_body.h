#pragma once
// Decoding REGISTER_BROKER / QUERY_DATA_VERSION bodies (PROTOCOL.md §3.2): RegisterBrokerBody
// JSON, its zlib-compressed binary form, and the bare TopicConfigSerializeWrapper sent by
// brokers older than V3_0_11.
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "roles/namesrv/route_data.h"

namespace rmq::namesrv {

struct RegisterBrokerBody {
  DataVersion dataVersion;
  std::vector<TopicConfigEntry> topics;
  // Absent (bare wrapper) = leave the filter-server table alone; empty = remove the entry.
  std::optional<std::vector<std::string>> filterServerList;
};

Result<RegisterBrokerBody> decodeRegisterBrokerBody(std::string_view body, bool compressed);
Result<RegisterBrokerBody> decodeTopicConfigWrapper(std::string_view body);
Result<DataVersion> decodeDataVersion(std::string_view body);

// crc32 as UtilAll.crc32: zlib CRC32 & 0x7FFFFFFF.
int32_t rocketmqCrc32(std::string_view data);

}  // namespace rmq::namesrv
