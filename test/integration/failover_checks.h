#pragma once
// What the failover drills check (failover_*_test.cpp): a Sender that produces numbered bodies the
// way a retrying client does, and the audit of what a broker stored against what was acknowledged:
// loss, duplicates, per-queue order.
//
//   Sender s(c, {.topic = "T"});                 // "f-0", "f-1", ... to the route's master
//   ... fault ...; s.finish();
//   auto a = auditStored(c, c.addr(2), "T", s.acknowledged());
//   MESSAGE(a.describe()); CHECK(a.lost == 0);
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "failover_cluster.h"

namespace rmq::test {

struct SenderSpec {
  std::string topic;
  std::string prefix = "f";        // bodies "<prefix>-<n>", n = 0, 1, ...; body n goes to queue n % 4
  std::string target;              // "" = the group's master as the name server lists it
  std::function<void()> onThread;  // runs first on the sender's thread (NetnsLink::enterOnThisThread)
};

// One thread sending body n until it is SEND_OK, then n + 1: after any failure (connection error,
// timeout, SERVICE_NOT_AVAILABLE, ...) it asks the name server again (no fixed target) and resends
// the same body to the same queue, as a client with retries does. So a send that was stored but
// not acknowledged shows up as a duplicate, and each queue's numbers must never go down.
class Sender {
 public:
  using Clock = std::chrono::steady_clock;
  Sender(FailoverCluster& cluster, SenderSpec spec);
  ~Sender() { finish(); }
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  void finish();  // stops and joins (idempotent)
  int64_t okCount() const { return okCount_.load(); }
  int64_t attempts() const { return attempts_.load(); }
  bool waitOks(int64_t atLeast, std::chrono::milliseconds timeout) const;
  std::vector<std::string> acknowledged();  // bodies answered SEND_OK
  std::vector<std::string> acknowledgedBy(const std::string& broker);  // ... by the broker at that address
  // When the first SEND_OK at or after `t` from `broker` ("" = any) arrived.
  std::optional<Clock::time_point> firstOkAfter(Clock::time_point t, const std::string& broker = "");
  std::optional<Clock::time_point> lastOk();

 private:
  void run();

  FailoverCluster& c_;
  SenderSpec spec_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> okCount_{0};
  std::atomic<int64_t> attempts_{0};
  std::mutex mu_;
  std::vector<std::string> acked_;
  std::vector<std::pair<Clock::time_point, std::string>> okAt_;  // (when, which broker) of acked_[i]
  std::thread thread_;
};

// Samples every broker's failoverRole / failoverEpoch (runtime info) every 50 ms on its own thread
// and the name server's master of the group, checking the invariants as it goes: a broker's
// epoch never goes down, no two brokers ever say "master" at one epoch.
class RoleSampler {
 public:
  explicit RoleSampler(FailoverCluster& cluster);
  ~RoleSampler() { finish(); }
  RoleSampler(const RoleSampler&) = delete;
  RoleSampler& operator=(const RoleSampler&) = delete;
  void finish();
  int64_t samples() const { return samples_.load(); }
  // Empty when every sample kept the invariants; else the first violations.
  std::vector<std::string> violations();

 private:
  void run();
  FailoverCluster& c_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> samples_{0};
  std::mutex mu_;
  std::vector<std::string> violations_;
  std::thread thread_;
};

// The bodies of `topic` a broker holds, per queue in queue order (all from offset 0).
using QueueBodies = std::vector<std::vector<std::string>>;
QueueBodies storedBodies(FailoverCluster& c, const std::string& addr, const std::string& topic, int queues = 4);

struct StoreAudit {
  size_t acknowledged = 0;
  size_t stored = 0;      // entries, duplicates included
  size_t lost = 0;        // acknowledged bodies not stored
  std::vector<std::string> missing;  // which (the first 1000)
  size_t duplicates = 0;  // entries beyond the first of their body
  size_t outOfOrder = 0;  // places where one sender's number went down within a queue
  std::string describe() const;
};
StoreAudit audit(const std::vector<std::string>& acknowledged, const QueueBodies& stored);
// storedBodies + audit, read again (bounded, 10 s) while acknowledged bodies are missing: dispatch
// to the consume queues follows SEND_OK, so the newest may not be pullable yet.
StoreAudit auditStored(FailoverCluster& c, const std::string& addr, const std::string& topic,
                       const std::vector<std::string>& acknowledged);

// Empty when two brokers' commit logs (in their NodeProcess dirs, 64 MB files) hold the same bytes
// in [0, end); else what differs.
std::string commitLogsDiffer(FailoverCluster& c, int a, int b, int64_t end);

}  // namespace rmq::test
