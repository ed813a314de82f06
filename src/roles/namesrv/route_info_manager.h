#pragma once
// RouteInfoManager: the name server's in-memory route tables (PROTOCOL.md §7.1-§7.3, §7.5).
// Pure logic, no sockets: a broker's connection is an opaque ChannelRef, times are passed in.
// Thread safety: every method may be called from any thread (one shared_mutex; route queries
// take it shared).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/result.h"
#include "roles/namesrv/register_body.h"
#include "roles/namesrv/route_data.h"

namespace rmq::namesrv {

// The connection a broker registered over: an id to match on close, and a weak handle the
// controller can use to close it when the broker expires.
struct ChannelRef {
  uint64_t id = 0;
  std::weak_ptr<void> handle;
};

struct BrokerRegistration {
  std::string clusterName;
  std::string brokerAddr;
  std::string brokerName;
  int64_t brokerId = 0;
  std::string haServerAddr;
};

struct RegisterBrokerResult {
  std::string masterAddr;    // empty unless a slave whose master is registered and live
  std::string haServerAddr;
  // An epoch-carrying brokerId-0 registration from a new address took the group over: the
  // previous master's address it dropped (empty otherwise). For the log.
  std::string replacedMaster;
};

struct TopicListResult {
  std::vector<std::string> topics;
  std::optional<std::string> brokerAddr;
};

// Failover epochs (body.dataVersion.stateVersion, RocketMQ 5.x's fence against two masters,
// apache/rocketmq#6316): per broker group the highest epoch a brokerId-0 registration carried is
// kept. A registration whose epoch is lower is refused (SYSTEM_ERROR, nothing applied) when it
// claims brokerId 0 or comes from the current master's address; an epoch-carrying brokerId-0
// registration from a new address takes the group over at once (the old master's address and
// live entry are dropped, the new one leaves its slave id). Registrations without an epoch (Java
// 4.x brokers, ours with failover off) are never fenced and behave as before.
class RouteInfoManager {
 public:
  Result<RegisterBrokerResult> registerBroker(const BrokerRegistration& reg, const RegisterBrokerBody& body,
                                              ChannelRef channel, int64_t nowMillis);
  void unregisterBroker(const std::string& clusterName, const std::string& brokerAddr,
                        const std::string& brokerName, int64_t brokerId);

  std::optional<TopicRouteData> pickupTopicRouteData(const std::string& topic) const;
  std::string clusterInfoJson() const;

  std::vector<std::string> allTopics() const;
  std::vector<std::string> topicsByCluster(const std::string& cluster) const;
  TopicListResult systemTopicList() const;
  std::vector<std::string> unitTopics() const;
  std::vector<std::string> hasUnitSubTopics() const;
  std::vector<std::string> hasUnitSubUnUnitTopics() const;

  void deleteTopic(const std::string& topic);
  void deleteTopic(const std::string& topic, const std::string& clusterName);
  int wipeWritePerm(const std::string& brokerName);  // returns the number of topics touched
  int addWritePerm(const std::string& brokerName);

  bool isBrokerTopicConfigChanged(const std::string& brokerAddr, const DataVersion& version) const;
  std::optional<DataVersion> dataVersionOf(const std::string& brokerAddr) const;
  void refreshLastUpdate(const std::string& brokerAddr, int64_t nowMillis);

  // Removes brokers not refreshed within `expiredMillis`; returns their channels (to close).
  std::vector<ChannelRef> scanNotActiveBrokers(int64_t nowMillis, int64_t expiredMillis);
  // Removes every broker registered over the connection `channelId`; returns their addresses.
  std::vector<std::string> onChannelDestroyed(uint64_t channelId);

  size_t liveBrokerCount() const;
  // The highest epoch a brokerId-0 registration of `brokerName` carried (nullopt: none yet).
  std::optional<int64_t> masterEpoch(const std::string& brokerName) const;

 private:
  struct LiveInfo {
    int64_t lastUpdateMillis = 0;
    DataVersion dataVersion;
    ChannelRef channel;
    std::string haServerAddr;
  };
  // All removal paths end here (lock held): drop the address, then empty brokers/clusters/topics.
  void removeBrokerAddrLocked(const std::string& brokerAddr);
  void removeBrokerNameLocked(const std::string& brokerName);
  std::vector<std::string> topicsMatchingLocked(bool (*pick)(int32_t sysFlag)) const;
  // The refusal of a registration below the group's epoch, if it is one (see the class comment).
  std::optional<Error> staleEpochLocked(const BrokerRegistration& reg, const DataVersion& version) const;
  // Drops the live and filter-server entries of an address no group lists any more.
  void forgetUnlistedAddrLocked(const std::string& brokerAddr);

  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, std::map<std::string, QueueData>> topicQueueTable_;
  std::map<std::string, BrokerData> brokerAddrTable_;
  std::map<std::string, std::set<std::string>> clusterAddrTable_;
  std::unordered_map<std::string, LiveInfo> brokerLiveTable_;
  std::unordered_map<std::string, std::vector<std::string>> filterServerTable_;
  // brokerName -> highest master epoch seen. Kept after the group's addresses expire: epochs only
  // rise, so a stale master coming back later is still refused. Keyed like brokerAddrTable_.
  std::unordered_map<std::string, int64_t> masterEpoch_;
};

}  // namespace rmq::namesrv
