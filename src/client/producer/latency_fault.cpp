#include "client/producer/latency_fault.h"

#include <limits>

#include "common/response_code.h"

namespace rmq::client {

int64_t LatencyFaultTolerance::notAvailableDurationFor(int64_t latencyMs) {
  static const int64_t latencyMax[] = {50, 100, 550, 1000, 2000, 3000, 15000};
  static const int64_t notAvailable[] = {0, 0, 30000, 60000, 120000, 180000, 600000};
  for (int i = 6; i >= 0; --i)
    if (latencyMs >= latencyMax[i]) return notAvailable[i];
  return 0;
}

void LatencyFaultTolerance::updateFaultItem(const std::string& brokerName, int64_t latencyMs, bool isolation,
                                            int64_t nowMs) {
  int64_t latency = isolation ? 30000 : latencyMs;
  std::lock_guard lk(mu_);
  auto& item = items_[brokerName];
  item.latencyMs = latency;
  item.availableAtMs = nowMs + notAvailableDurationFor(latency);
}

bool LatencyFaultTolerance::isAvailable(const std::string& brokerName, int64_t nowMs) const {
  std::lock_guard lk(mu_);
  auto it = items_.find(brokerName);
  return it == items_.end() || nowMs >= it->second.availableAtMs;
}

std::optional<std::string> LatencyFaultTolerance::pickOneAtLeast(int64_t nowMs) const {
  std::lock_guard lk(mu_);
  std::optional<std::string> best;
  int64_t bestAt = std::numeric_limits<int64_t>::max();
  for (const auto& [name, item] : items_)
    if (item.availableAtMs < bestAt) { bestAt = item.availableAtMs; best = name; }
  return best;
}

void LatencyFaultTolerance::remove(const std::string& brokerName) {
  std::lock_guard lk(mu_);
  items_.erase(brokerName);
}

MessageQueue QueueSelector::select(const std::vector<MessageQueue>& queues, const std::string& lastBrokerName,
                                   int64_t nowMs) {
  const size_t n = queues.size();
  const uint32_t start = next_.fetch_add(1, std::memory_order_relaxed);
  if (faultEnable_) {
    for (size_t k = 0; k < n; ++k) {
      const MessageQueue& mq = queues[(start + k) % n];
      if (faults_.isAvailable(mq.brokerName, nowMs) && (lastBrokerName.empty() || mq.brokerName != lastBrokerName))
        return mq;
    }
    // Everything is isolated: take the broker that recovers first, if it serves this topic.
    if (auto least = faults_.pickOneAtLeast(nowMs)) {
      for (size_t k = 0; k < n; ++k) {
        const MessageQueue& mq = queues[(start + k) % n];
        if (mq.brokerName == *least) return mq;
      }
    }
  }
  if (!lastBrokerName.empty()) {
    for (size_t k = 0; k < n; ++k) {
      const MessageQueue& mq = queues[(start + k) % n];
      if (mq.brokerName != lastBrokerName) return mq;
    }
  }
  return queues[start % n];
}

void QueueSelector::update(const std::string& brokerName, int64_t latencyMs, bool isolation, int64_t nowMs) {
  if (faultEnable_) faults_.updateFaultItem(brokerName, latencyMs, isolation, nowMs);
}

bool isRetryableSendCode(int code, const std::vector<int>& added) {
  using namespace ResponseCode;
  for (int c : added)
    if (c == code) return true;
  switch (code) {
    case TOPIC_NOT_EXIST: case SERVICE_NOT_AVAILABLE: case SYSTEM_ERROR: case NO_PERMISSION:
    case NO_BUYER_ID: case NOT_IN_CURRENT_UNIT:
    case CLIENT_TIMEOUT: case CLIENT_CONNECT_FAILED: case CLIENT_CONNECTION_CLOSED: case CLIENT_TOO_MUCH_REQUEST:
      return true;
    default:
      return false;
  }
}

}  // namespace rmq::client
