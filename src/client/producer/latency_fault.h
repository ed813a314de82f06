#pragma once
// Producer-side broker choice: round-robin queue selection that avoids the broker that just failed
// (on retries) and, when sendLatencyFaultEnable is on, brokers isolated by recent latency/errors
// (Java MQFaultStrategy + LatencyFaultToleranceImpl). Thread-safe.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "client/types.h"

namespace rmq::client {

class LatencyFaultTolerance {
 public:
  // Java defaults: latencyMax {50,100,550,1000,2000,3000,15000} ms -> notAvailableDuration
  // {0,0,30000,60000,120000,180000,600000} ms. A failed call is charged 30000 ms of latency.
  static int64_t notAvailableDurationFor(int64_t latencyMs);

  void updateFaultItem(const std::string& brokerName, int64_t latencyMs, bool isolation, int64_t nowMs);
  bool isAvailable(const std::string& brokerName, int64_t nowMs) const;
  // The broker whose isolation ends first (Java pickOneAtLeast, simplified); nullopt if none known.
  std::optional<std::string> pickOneAtLeast(int64_t nowMs) const;
  void remove(const std::string& brokerName);

 private:
  struct Item { int64_t latencyMs = 0; int64_t availableAtMs = 0; };
  mutable std::mutex mu_;
  std::unordered_map<std::string, Item> items_;
};

class QueueSelector {
 public:
  explicit QueueSelector(bool latencyFaultEnable) : faultEnable_(latencyFaultEnable) {}
  bool faultEnabled() const { return faultEnable_; }
  // Picks a queue of `queues` (non-empty). lastBrokerName = broker of the failed previous attempt.
  MessageQueue select(const std::vector<MessageQueue>& queues, const std::string& lastBrokerName, int64_t nowMs);
  // Records the outcome of a send (latency of the call; isolation = it failed).
  void update(const std::string& brokerName, int64_t latencyMs, bool isolation, int64_t nowMs);
  LatencyFaultTolerance& faults() { return faults_; }

 private:
  bool faultEnable_;
  std::atomic<uint32_t> next_{0};
  LatencyFaultTolerance faults_;
};

// Send failure classification (§2.1): should the producer try again on another broker? Java 4.9.8's
// DefaultMQProducer.retryResponseCodes plus the transport errors, and `added` (Java's
// addRetryResponseCode, e.g. SYSTEM_BUSY: a busy broker's fast-failure answer, not retried by default).
bool isRetryableSendCode(int code, const std::vector<int>& added = {});

}  // namespace rmq::client
