#include "roles/broker/stats/broker_stats.h"

#include <chrono>
#include <unordered_map>

namespace rmq::broker {

namespace {
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;
}  // namespace

GetStats& getStats() {
  static GetStats stats;
  return stats;
}

// Each network thread caches group -> topic -> counter, so a pull takes the registry lock only
// the first time its thread sees that (group, topic); lookups by string_view allocate nothing.
GetStats::GroupCounter* GetStats::groupCounter(std::string_view group, std::string_view topic) {
  thread_local StringMap<StringMap<GroupCounter*>> cache;
  auto g = cache.find(group);
  if (g == cache.end()) g = cache.emplace(std::string(group), StringMap<GroupCounter*>{}).first;
  if (auto t = g->second.find(topic); t != g->second.end()) return t->second;
  std::string key;
  key.append(topic).push_back('@');
  key.append(group);
  std::lock_guard lk(mu_);
  auto it = groups_.find(key);
  if (it == groups_.end()) {
    it = groups_.emplace(std::move(key), std::make_unique<GroupCounter>()).first;
    // A zero sample at creation: the first pull's messages count in the first rate.
    using std::chrono::system_clock;
    auto now = std::chrono::duration_cast<std::chrono::milliseconds>(system_clock::now().time_since_epoch());
    it->second->samples.emplace_back(now.count(), 0);
  }
  g->second.emplace(std::string(topic), it->second.get());
  return it->second.get();
}

void GetStats::found(std::string_view group, std::string_view topic, int64_t messages) {
  foundTimes.fetch_add(1, std::memory_order_relaxed);
  transferredMsgs.fetch_add(messages, std::memory_order_relaxed);
  groupCounter(group, topic)->messages.fetch_add(messages, std::memory_order_relaxed);
}

void GetStats::sampleGroups(int64_t nowMs) {
  std::lock_guard lk(mu_);
  for (auto& [key, c] : groups_) {
    c->samples.emplace_back(nowMs, c->messages.load(std::memory_order_relaxed));
    while (c->samples.size() > 61) c->samples.pop_front();
  }
}

double GetStats::groupTps(const std::string& group, const std::string& topic) const {
  std::lock_guard lk(mu_);
  auto it = groups_.find(topic + "@" + group);
  if (it == groups_.end() || it->second->samples.size() < 2) return 0.0;
  auto& s = it->second->samples;
  int64_t dt = s.back().first - s.front().first;
  return dt <= 0 ? 0.0 : static_cast<double>(s.back().second - s.front().second) * 1000.0 / static_cast<double>(dt);
}

}  // namespace rmq::broker
