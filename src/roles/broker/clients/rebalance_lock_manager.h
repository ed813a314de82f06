#pragma once
// RebalanceLockManager: orderly-consumption queue locks (LOCK_BATCH_MQ / UNLOCK_BATCH_MQ,
// PROTOCOL.md §10.4): group -> MessageQueue -> (clientId, last refresh). A lock expires after
// lockMaxLiveTime (60 s) without refresh. Thread-safe (one mutex); memory only, like Java.
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace rmq::broker {

struct MessageQueueId {
  std::string topic;
  std::string brokerName;
  int32_t queueId = 0;
  auto operator<=>(const MessageQueueId&) const = default;
};

class RebalanceLockManager {
 public:
  explicit RebalanceLockManager(std::chrono::milliseconds lockMaxLiveTime = std::chrono::seconds(60))
      : maxLive_(lockMaxLiveTime) {}

  // Locks what it can for clientId; returns the queues the client now holds.
  std::vector<MessageQueueId> tryLockBatch(const std::string& group, const std::vector<MessageQueueId>& mqs,
                                           const std::string& clientId);
  void unlockBatch(const std::string& group, const std::vector<MessageQueueId>& mqs, const std::string& clientId);
  bool isLockedBy(const std::string& group, const MessageQueueId& mq, const std::string& clientId) const;

 private:
  struct Entry {
    std::string clientId;
    std::chrono::steady_clock::time_point lastUpdate;
  };
  bool expired(const Entry& e, std::chrono::steady_clock::time_point now) const {
    return now - e.lastUpdate > maxLive_;
  }

  std::chrono::milliseconds maxLive_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::map<MessageQueueId, Entry>> table_;
};

}  // namespace rmq::broker
