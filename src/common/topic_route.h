#pragma once
// The parts of a topic route the name server keeps and clients read (PROTOCOL.md §3.3/§3.4):
// one type for both ends (roles/namesrv encodes them, client/route.h decodes them).
#include <cstdint>
#include <map>
#include <string>

namespace rmq {

// Java QueueData: a broker's queues of one topic.
struct QueueData {
  std::string brokerName;
  int32_t readQueueNums = 0;
  int32_t writeQueueNums = 0;
  int32_t perm = 0;
  int32_t topicSysFlag = 0;
  bool operator==(const QueueData&) const = default;
};

// Java BrokerData: one broker (master and slaves) of a cluster.
struct BrokerData {
  std::string cluster;
  std::string brokerName;
  std::map<int64_t, std::string> brokerAddrs;  // brokerId -> "ip:port"; 0 = master
  bool operator==(const BrokerData&) const = default;

  const std::string* masterAddr() const;  // nullptr when id 0 is absent
  // Java BrokerData.selectBrokerAddr: the master, else a random slave (admin reads, consumer ids).
  const std::string* selectAddr() const;
};

}  // namespace rmq
