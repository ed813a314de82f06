#include "roles/broker/clients/rebalance_lock_manager.h"

namespace rmq::broker {

std::vector<MessageQueueId> RebalanceLockManager::tryLockBatch(const std::string& group,
                                                               const std::vector<MessageQueueId>& mqs,
                                                               const std::string& clientId) {
  std::vector<MessageQueueId> locked;
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lk(mu_);
  auto& groupTable = table_[group];
  for (auto& mq : mqs) {
    auto it = groupTable.find(mq);
    if (it == groupTable.end()) {
      groupTable.emplace(mq, Entry{clientId, now});
      locked.push_back(mq);
    } else if (it->second.clientId == clientId || expired(it->second, now)) {
      it->second = Entry{clientId, now};
      locked.push_back(mq);
    }
  }
  return locked;
}

void RebalanceLockManager::unlockBatch(const std::string& group, const std::vector<MessageQueueId>& mqs,
                                       const std::string& clientId) {
  std::lock_guard lk(mu_);
  auto g = table_.find(group);
  if (g == table_.end()) return;
  for (auto& mq : mqs) {
    auto it = g->second.find(mq);
    if (it != g->second.end() && it->second.clientId == clientId) g->second.erase(it);
  }
}

bool RebalanceLockManager::isLockedBy(const std::string& group, const MessageQueueId& mq,
                                      const std::string& clientId) const {
  std::lock_guard lk(mu_);
  auto g = table_.find(group);
  if (g == table_.end()) return false;
  auto it = g->second.find(mq);
  return it != g->second.end() && it->second.clientId == clientId &&
         !expired(it->second, std::chrono::steady_clock::now());
}

}  // namespace rmq::broker
