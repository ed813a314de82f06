#pragma once
// Topic routes as the client sees them (PROTOCOL.md §3.3/§3.4, §7.5) and the queue lists derived
// from them: publish queues (write) for producers, subscribe queues (read) for consumers.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/types.h"
#include "common/result.h"
#include "common/topic_route.h"

namespace rmq::client {

inline constexpr int32_t kPermInherit = 0x1;
inline constexpr int32_t kPermWrite = 0x2;
inline constexpr int32_t kPermRead = 0x4;

using rmq::BrokerData;  // common/topic_route.h: shared with the name server
using rmq::QueueData;

inline constexpr int64_t kMasterId = 0;

// Java MQClientInstance.findBrokerAddressInSubscribe on one broker's id -> address map: the asked
// id; for a slave id also id + 1; unless onlyThisBroker, else the lowest id present (the master
// when it is there, else a slave: how consumers keep reading from a slave when the master is gone).
struct FindBrokerResult {
  std::string addr;
  bool slave = false;
};
std::optional<FindBrokerResult> findBrokerInSubscribe(const std::map<int64_t, std::string>& addrs, int64_t brokerId,
                                                      bool onlyThisBroker);

struct TopicRouteData {
  std::optional<std::string> orderTopicConf;
  std::vector<QueueData> queueDatas;
  std::vector<BrokerData> brokerDatas;
  const BrokerData* broker(std::string_view brokerName) const;
};

struct ClusterInfo {
  std::map<std::string, BrokerData> brokerAddrTable;                 // brokerName -> data
  std::map<std::string, std::vector<std::string>> clusterAddrTable;  // cluster -> brokerNames
  // The brokers (one BrokerData per brokerName) of `cluster`, or of every cluster when it is empty.
  std::vector<const BrokerData*> brokersOf(std::string_view cluster) const;
};

// Parse the fastjson or standard-JSON bodies (unquoted numeric keys accepted).
Result<TopicRouteData> parseTopicRouteData(std::string_view json);
Result<ClusterInfo> parseClusterInfo(std::string_view json);
Result<std::vector<std::string>> parseTopicList(std::string_view json);  // {"topicList":[...]}
Result<std::map<std::string, std::string>> parseKvTable(std::string_view json);  // {"table":{}}

// Writable queues in route order (brokers sorted by name like Java's topicRouteData2TopicPublishInfo
// for non-order topics; only brokers with a master). `orderTopicConf` "b1:4;b2:4" takes precedence.
std::vector<MessageQueue> publishQueues(const std::string& topic, const TopicRouteData& route);
// Readable queues, sorted (the mqAll of §12.2).
std::vector<MessageQueue> subscribeQueues(const std::string& topic, const TopicRouteData& route);

}  // namespace rmq::client
