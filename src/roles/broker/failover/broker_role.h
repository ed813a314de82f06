#pragma once
// BrokerRole: the role this broker plays now. Without failover it is fixed at start (brokerRole,
// brokerId of the config); with failover the coordinator (failover_coordinator.h) flips it at run
// time and the send path, registration, replication and the delay / transaction services read it
// here instead of the config.
//
// Fencing: a failover master may acknowledge a send only while `mayAcknowledge()`: before the
// monotonic deadline its last lease renewal bought (README: the timing argument). Without
// failover the deadline is never set and every check passes.
// Threads: lock-free atomics, any thread.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace rmq::broker {

class BrokerRole {
 public:
  using Clock = std::chrono::steady_clock;

  // Once at start, before anything reads it (the controller).
  void configure(bool master, int64_t brokerId, bool failover) {
    master_ = master;
    brokerId_ = brokerId;
    ownId_ = brokerId;
    fencing_ = failover;
  }

  bool isMaster() const { return master_.load(std::memory_order_acquire); }
  bool isSlave() const { return !isMaster(); }
  int64_t brokerId() const { return brokerId_.load(std::memory_order_acquire); }  // as registered
  int64_t epoch() const { return epoch_.load(std::memory_order_acquire); }         // 0: failover off
  // The brokerId to register with: 0 only while the master's lease is proven (failover), so a
  // master that cannot renew stops registering as 0 before its lease can expire.
  int64_t registrationId() const {
    if (!failover()) return brokerId();
    return mayAcknowledge() ? 0 : ownId_.load(std::memory_order_acquire);
  }
  bool failover() const { return fencing_.load(std::memory_order_relaxed); }

  // Master under failover: the lease is known valid until `until` (monotonic).
  void leaseValidUntil(Clock::time_point until) {
    fenceAt_.store(until.time_since_epoch().count(), std::memory_order_release);
  }
  // Sends appended now may be acknowledged: a master, and (failover) its lease still surely held.
  bool mayAcknowledge() const {
    if (!isMaster()) return false;
    if (!failover()) return true;
    return Clock::now().time_since_epoch().count() < fenceAt_.load(std::memory_order_acquire);
  }

  // A new send may start: mayAcknowledge() and not draining for a planned switchover (sends in
  // flight still get their answer).
  bool acceptsSends() const { return !draining_.load(std::memory_order_acquire) && mayAcknowledge(); }
  void setDraining(bool on) { draining_.store(on, std::memory_order_release); }

  // Role changes (the coordinator, one thread at a time).
  void becomeMaster(int64_t epoch) {
    draining_.store(false, std::memory_order_release);
    epoch_.store(epoch, std::memory_order_release);
    brokerId_.store(0, std::memory_order_release);
    master_.store(true, std::memory_order_release);
  }
  void becomeSlave(int64_t epoch, int64_t ownId) {
    fenceAt_.store(0, std::memory_order_release);
    master_.store(false, std::memory_order_release);
    brokerId_.store(ownId, std::memory_order_release);
    if (epoch > this->epoch()) epoch_.store(epoch, std::memory_order_release);
  }

 private:
  std::atomic<bool> master_{true};
  std::atomic<int64_t> brokerId_{0};
  std::atomic<int64_t> ownId_{0};
  std::atomic<int64_t> epoch_{0};
  std::atomic<Clock::rep> fenceAt_{0};
  std::atomic<bool> fencing_{false};
  std::atomic<bool> draining_{false};
};

}  // namespace rmq::broker
