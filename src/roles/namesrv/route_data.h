#pragma once
// Name server data model (PROTOCOL.md §3.2-§3.4, §7.1) and its JSON encodings as Java clients
// parse them. Pure values: no locks, no I/O.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/topic_route.h"

namespace rmq::namesrv {

struct DataVersion {
  int64_t timestamp = 0;
  int64_t counter = 0;
  // The broker group's failover epoch (RocketMQ 5.x DataVersion.stateVersion). Absent from Java
  // 4.x brokers and from ours with failover off; compared as 0 when absent, as 5.x does.
  std::optional<int64_t> stateVersion;
  bool operator==(const DataVersion& o) const {
    return timestamp == o.timestamp && counter == o.counter && stateVersion.value_or(0) == o.stateVersion.value_or(0);
  }
};

// A broker's TopicConfig as carried in REGISTER_BROKER (only the fields the name server uses
// plus what the compressed form carries).
struct TopicConfigEntry {
  std::string topicName;
  int32_t readQueueNums = 16;
  int32_t writeQueueNums = 16;
  int32_t perm = 6;
  int32_t topicSysFlag = 0;
};

using rmq::BrokerData;  // common/topic_route.h: shared with the client
using rmq::QueueData;

struct TopicRouteData {
  std::optional<std::string> orderTopicConf;
  std::vector<QueueData> queueDatas;
  std::vector<BrokerData> brokerDatas;
  std::map<std::string, std::vector<std::string>> filterServerTable;
};

// Topic sys flags (common.sysflag.TopicSysFlag).
inline constexpr int32_t kTopicFlagUnit = 0x1;
inline constexpr int32_t kTopicFlagUnitSub = 0x2;

// PermName bits (§7.5).
inline constexpr int32_t kPermWrite = 0x2;
inline constexpr int32_t kPermRead = 0x4;

// JSON encoders. `standardJson` = quoted map keys and \u-escaped non-ASCII (request version >= 401
// or acceptStandardJsonOnly); otherwise fastjson's default form with unquoted Long keys.
std::string encodeTopicRouteData(const TopicRouteData& route, bool standardJson);
std::string encodeClusterInfo(const std::map<std::string, BrokerData>& brokerAddrTable,
                              const std::map<std::string, std::set<std::string>>& clusterAddrTable);
// {"topicList":[...]} plus "brokerAddr" when given (GET_SYSTEM_TOPIC_LIST_FROM_NS).
std::string encodeTopicList(const std::vector<std::string>& topics,
                            const std::optional<std::string>& brokerAddr = std::nullopt);
std::string encodeDataVersion(const DataVersion& v);
// {"table":{...}} (KVTable).
std::string encodeKvTable(const std::map<std::string, std::string>& table);

}  // namespace rmq::namesrv
