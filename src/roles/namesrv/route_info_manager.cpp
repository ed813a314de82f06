#include "roles/namesrv/route_info_manager.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "common/response_code.h"

namespace rmq::namesrv {

Result<RegisterBrokerResult> RouteInfoManager::registerBroker(const BrokerRegistration& reg,
                                                              const RegisterBrokerBody& body, ChannelRef channel,
                                                              int64_t nowMillis) {
  std::unique_lock lk(mu_);
  if (auto refused = staleEpochLocked(reg, body.dataVersion)) {
    // As 5.x: a refused address keeps no live entry unless the group still lists it.
    forgetUnlistedAddrLocked(reg.brokerAddr);
    return *refused;
  }
  clusterAddrTable_[reg.clusterName].insert(reg.brokerName);

  auto [it, created] = brokerAddrTable_.try_emplace(reg.brokerName);
  BrokerData& data = it->second;
  if (created) {
    data.cluster = reg.clusterName;
    data.brokerName = reg.brokerName;
  }
  RegisterBrokerResult result;
  const std::optional<int64_t> epoch = body.dataVersion.stateVersion;
  bool takeOver = false;
  if (reg.brokerId == 0 && epoch) {
    auto& known = masterEpoch_[reg.brokerName];
    known = std::max(known, *epoch);
    auto old = data.brokerAddrs.find(0);
    takeOver = old != data.brokerAddrs.end() && old->second != reg.brokerAddr;
    if (takeOver) result.replacedMaster = old->second;
  }
  // A promoted slave: the same address under another id is dropped first.
  std::erase_if(data.brokerAddrs, [&](const auto& kv) { return kv.second == reg.brokerAddr && kv.first != reg.brokerId; });
  auto [addrIt, newAddr] = data.brokerAddrs.insert_or_assign(reg.brokerId, reg.brokerAddr);
  // The old master's live entry goes with its id-0 slot: it must not outlive it as this
  // group's master (slaves are told the master of id 0 only while it is live).
  if (takeOver) forgetUnlistedAddrLocked(result.replacedMaster);
  bool registerFirst = created || newAddr || takeOver;

  if (reg.brokerId == 0) {
    auto live = brokerLiveTable_.find(reg.brokerAddr);
    bool changed = live == brokerLiveTable_.end() || !(live->second.dataVersion == body.dataVersion);
    if (changed || registerFirst) {
      for (const auto& tc : body.topics) {
        topicQueueTable_[tc.topicName][reg.brokerName] =
            QueueData{reg.brokerName, tc.readQueueNums, tc.writeQueueNums, tc.perm, tc.topicSysFlag};
      }
    }
  }

  brokerLiveTable_[reg.brokerAddr] = LiveInfo{nowMillis, body.dataVersion, std::move(channel), reg.haServerAddr};

  if (body.filterServerList) {
    if (body.filterServerList->empty()) filterServerTable_.erase(reg.brokerAddr);
    else filterServerTable_[reg.brokerAddr] = *body.filterServerList;
  }

  if (reg.brokerId != 0) {
    auto master = data.brokerAddrs.find(0);
    if (master != data.brokerAddrs.end()) {
      auto masterLive = brokerLiveTable_.find(master->second);
      if (masterLive != brokerLiveTable_.end()) {
        result.masterAddr = master->second;
        result.haServerAddr = masterLive->second.haServerAddr;
      }
    }
  }
  return result;
}

std::optional<Error> RouteInfoManager::staleEpochLocked(const BrokerRegistration& reg, const DataVersion& version) const {
  if (!version.stateVersion) return std::nullopt;
  auto known = masterEpoch_.find(reg.brokerName);
  if (known == masterEpoch_.end() || *version.stateVersion >= known->second) return std::nullopt;
  std::string master;
  if (auto b = brokerAddrTable_.find(reg.brokerName); b != brokerAddrTable_.end()) {
    if (auto m = b->second.brokerAddrs.find(0); m != b->second.brokerAddrs.end()) master = m->second;
  }
  // A stale slave registration from elsewhere harms nobody; from the master's address it would
  // take the master out of id 0.
  if (reg.brokerId != 0 && reg.brokerAddr != master) return std::nullopt;
  return makeError(ResponseCode::SYSTEM_ERROR,
                   fmt::format("stale epoch: broker group {}/{} is at epoch {} (master {}); the registration of {} as "
                               "brokerId {} carries epoch {}",
                               reg.clusterName, reg.brokerName, known->second, master.empty() ? "none" : master,
                               reg.brokerAddr, reg.brokerId, *version.stateVersion));
}

void RouteInfoManager::forgetUnlistedAddrLocked(const std::string& brokerAddr) {
  for (const auto& [name, data] : brokerAddrTable_) {
    for (const auto& [id, addr] : data.brokerAddrs) {
      if (addr == brokerAddr) return;
    }
  }
  brokerLiveTable_.erase(brokerAddr);
  filterServerTable_.erase(brokerAddr);
}

std::optional<int64_t> RouteInfoManager::masterEpoch(const std::string& brokerName) const {
  std::shared_lock lk(mu_);
  auto it = masterEpoch_.find(brokerName);
  if (it == masterEpoch_.end()) return std::nullopt;
  return it->second;
}

void RouteInfoManager::unregisterBroker(const std::string& clusterName, const std::string& brokerAddr,
                                        const std::string& brokerName, int64_t brokerId) {
  std::unique_lock lk(mu_);
  brokerLiveTable_.erase(brokerAddr);
  filterServerTable_.erase(brokerAddr);
  auto it = brokerAddrTable_.find(brokerName);
  if (it == brokerAddrTable_.end()) return;
  it->second.brokerAddrs.erase(brokerId);
  if (!it->second.brokerAddrs.empty()) return;
  brokerAddrTable_.erase(it);
  if (auto c = clusterAddrTable_.find(clusterName); c != clusterAddrTable_.end()) {
    c->second.erase(brokerName);
    if (c->second.empty()) clusterAddrTable_.erase(c);
  }
  removeBrokerNameLocked(brokerName);
}

void RouteInfoManager::removeBrokerNameLocked(const std::string& brokerName) {
  for (auto it = topicQueueTable_.begin(); it != topicQueueTable_.end();) {
    it->second.erase(brokerName);
    it = it->second.empty() ? topicQueueTable_.erase(it) : std::next(it);
  }
}

void RouteInfoManager::removeBrokerAddrLocked(const std::string& brokerAddr) {
  brokerLiveTable_.erase(brokerAddr);
  filterServerTable_.erase(brokerAddr);
  for (auto it = brokerAddrTable_.begin(); it != brokerAddrTable_.end(); ++it) {
    auto& addrs = it->second.brokerAddrs;
    auto n = std::erase_if(addrs, [&](const auto& kv) { return kv.second == brokerAddr; });
    if (n == 0) continue;
    if (addrs.empty()) {
      std::string brokerName = it->first;
      brokerAddrTable_.erase(it);
      for (auto c = clusterAddrTable_.begin(); c != clusterAddrTable_.end(); ++c) {
        if (c->second.erase(brokerName) == 0) continue;
        if (c->second.empty()) clusterAddrTable_.erase(c);
        break;
      }
      removeBrokerNameLocked(brokerName);
    }
    return;
  }
}

std::optional<TopicRouteData> RouteInfoManager::pickupTopicRouteData(const std::string& topic) const {
  std::shared_lock lk(mu_);
  auto it = topicQueueTable_.find(topic);
  if (it == topicQueueTable_.end() || it->second.empty()) return std::nullopt;
  TopicRouteData route;
  route.queueDatas.reserve(it->second.size());
  for (const auto& [brokerName, qd] : it->second) {
    route.queueDatas.push_back(qd);
    auto b = brokerAddrTable_.find(brokerName);
    if (b == brokerAddrTable_.end()) continue;
    route.brokerDatas.push_back(b->second);
    if (filterServerTable_.empty()) continue;
    for (const auto& [id, addr] : b->second.brokerAddrs) {
      if (auto f = filterServerTable_.find(addr); f != filterServerTable_.end()) route.filterServerTable[addr] = f->second;
    }
  }
  if (route.brokerDatas.empty()) return std::nullopt;
  return route;
}

std::string RouteInfoManager::clusterInfoJson() const {
  std::shared_lock lk(mu_);
  return encodeClusterInfo(brokerAddrTable_, clusterAddrTable_);
}

std::vector<std::string> RouteInfoManager::allTopics() const {
  std::shared_lock lk(mu_);
  std::vector<std::string> out;
  out.reserve(topicQueueTable_.size());
  for (const auto& kv : topicQueueTable_) out.push_back(kv.first);
  return out;
}

std::vector<std::string> RouteInfoManager::topicsByCluster(const std::string& cluster) const {
  std::shared_lock lk(mu_);
  std::vector<std::string> out;
  auto c = clusterAddrTable_.find(cluster);
  if (c == clusterAddrTable_.end()) return out;
  for (const auto& [topic, queues] : topicQueueTable_) {
    for (const auto& brokerName : c->second) {
      if (queues.count(brokerName)) { out.push_back(topic); break; }
    }
  }
  return out;
}

TopicListResult RouteInfoManager::systemTopicList() const {
  std::shared_lock lk(mu_);
  TopicListResult out;
  for (const auto& [cluster, names] : clusterAddrTable_) {
    out.topics.push_back(cluster);
    out.topics.insert(out.topics.end(), names.begin(), names.end());
  }
  for (const auto& [name, data] : brokerAddrTable_) {
    if (!data.brokerAddrs.empty()) { out.brokerAddr = data.brokerAddrs.begin()->second; break; }
  }
  return out;
}

std::vector<std::string> RouteInfoManager::topicsMatchingLocked(bool (*pick)(int32_t sysFlag)) const {
  std::vector<std::string> out;
  for (const auto& [topic, queues] : topicQueueTable_) {
    // Like Java, one QueueData decides for the whole topic.
    if (!queues.empty() && pick(queues.begin()->second.topicSysFlag)) out.push_back(topic);
  }
  return out;
}

std::vector<std::string> RouteInfoManager::unitTopics() const {
  std::shared_lock lk(mu_);
  return topicsMatchingLocked([](int32_t f) { return (f & kTopicFlagUnit) != 0; });
}

std::vector<std::string> RouteInfoManager::hasUnitSubTopics() const {
  std::shared_lock lk(mu_);
  return topicsMatchingLocked([](int32_t f) { return (f & kTopicFlagUnitSub) != 0; });
}

std::vector<std::string> RouteInfoManager::hasUnitSubUnUnitTopics() const {
  std::shared_lock lk(mu_);
  return topicsMatchingLocked([](int32_t f) { return (f & kTopicFlagUnit) == 0 && (f & kTopicFlagUnitSub) != 0; });
}

void RouteInfoManager::deleteTopic(const std::string& topic) {
  std::unique_lock lk(mu_);
  topicQueueTable_.erase(topic);
}

void RouteInfoManager::deleteTopic(const std::string& topic, const std::string& clusterName) {
  std::unique_lock lk(mu_);
  auto c = clusterAddrTable_.find(clusterName);
  auto t = topicQueueTable_.find(topic);
  if (c == clusterAddrTable_.end() || t == topicQueueTable_.end()) return;
  for (const auto& brokerName : c->second) t->second.erase(brokerName);
  if (t->second.empty()) topicQueueTable_.erase(t);
}

int RouteInfoManager::wipeWritePerm(const std::string& brokerName) {
  std::unique_lock lk(mu_);
  int count = 0;
  for (auto& [topic, queues] : topicQueueTable_) {
    if (auto q = queues.find(brokerName); q != queues.end()) { q->second.perm &= ~kPermWrite; ++count; }
  }
  return count;
}

int RouteInfoManager::addWritePerm(const std::string& brokerName) {
  std::unique_lock lk(mu_);
  int count = 0;
  for (auto& [topic, queues] : topicQueueTable_) {
    if (auto q = queues.find(brokerName); q != queues.end()) { q->second.perm = kPermRead | kPermWrite; ++count; }
  }
  return count;
}

bool RouteInfoManager::isBrokerTopicConfigChanged(const std::string& brokerAddr, const DataVersion& version) const {
  auto stored = dataVersionOf(brokerAddr);
  return !stored || !(*stored == version);
}

std::optional<DataVersion> RouteInfoManager::dataVersionOf(const std::string& brokerAddr) const {
  std::shared_lock lk(mu_);
  auto it = brokerLiveTable_.find(brokerAddr);
  if (it == brokerLiveTable_.end()) return std::nullopt;
  return it->second.dataVersion;
}

void RouteInfoManager::refreshLastUpdate(const std::string& brokerAddr, int64_t nowMillis) {
  std::unique_lock lk(mu_);
  if (auto it = brokerLiveTable_.find(brokerAddr); it != brokerLiveTable_.end()) it->second.lastUpdateMillis = nowMillis;
}

std::vector<ChannelRef> RouteInfoManager::scanNotActiveBrokers(int64_t nowMillis, int64_t expiredMillis) {
  std::unique_lock lk(mu_);
  std::vector<std::string> expired;
  std::vector<ChannelRef> channels;
  for (const auto& [addr, live] : brokerLiveTable_) {
    if (live.lastUpdateMillis + expiredMillis < nowMillis) {
      expired.push_back(addr);
      channels.push_back(live.channel);
    }
  }
  for (const auto& addr : expired) removeBrokerAddrLocked(addr);
  return channels;
}

std::vector<std::string> RouteInfoManager::onChannelDestroyed(uint64_t channelId) {
  std::unique_lock lk(mu_);
  std::vector<std::string> addrs;
  for (const auto& [addr, live] : brokerLiveTable_) {
    if (live.channel.id == channelId) addrs.push_back(addr);
  }
  for (const auto& addr : addrs) removeBrokerAddrLocked(addr);
  return addrs;
}

size_t RouteInfoManager::liveBrokerCount() const {
  std::shared_lock lk(mu_);
  return brokerLiveTable_.size();
}

}  // namespace rmq::namesrv
