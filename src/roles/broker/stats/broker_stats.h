#pragma once
// Per-process get-side counters behind GET_BROKER_RUNTIME_INFO's get figures (Java's
// StoreStatsService getMessageTimesTotalFound / Miss and getMessageTransferedMsgCount) and
// GET_CONSUME_STATS's consumeTps (Java's per topic@group GROUP_GET_NUMS rate).
// Threads: PullProcessor bumps them on the network threads with relaxed atomics (no lock on the
// pull path once a thread has seen a (group, topic)); the runtime-info sampler reads totals and
// calls sampleGroups() once a second on ctx.background; groupTps() is safe from any thread.
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace rmq::broker {

class GetStats {
 public:
  std::atomic<int64_t> foundTimes{0};       // pulls that returned messages
  std::atomic<int64_t> missTimes{0};        // pulls that returned none (not found, moved, ...)
  std::atomic<int64_t> transferredMsgs{0};  // messages returned by pulls

  void found(std::string_view group, std::string_view topic, int64_t messages);
  void miss() { missTimes.fetch_add(1, std::memory_order_relaxed); }

  // Records each (group, topic) total at `nowMs` (keeps the last minute).
  void sampleGroups(int64_t nowMs);
  // Messages per second `group` pulled from `topic` over the last minute (0 before two samples).
  double groupTps(const std::string& group, const std::string& topic) const;

 private:
  struct GroupCounter {
    std::atomic<int64_t> messages{0};
    std::deque<std::pair<int64_t, int64_t>> samples;  // (ms, messages), under mu_
  };
  GroupCounter* groupCounter(std::string_view group, std::string_view topic);

  mutable std::mutex mu_;
  // "topic@group" -> counter; entries live as long as the process (threads cache raw pointers).
  std::map<std::string, std::unique_ptr<GroupCounter>, std::less<>> groups_;
};

// The process's counters (one broker per process; the sampler takes a baseline at start).
GetStats& getStats();

}  // namespace rmq::broker
