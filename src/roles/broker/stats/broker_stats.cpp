#include "roles/broker/stats/broker_stats.h"

#include <unordered_map>

#include "common/atomic_max.h"

namespace rmq::broker {

namespace {
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

int64_t nowMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}
}  // namespace

GetStats& getStats() {
  static GetStats stats;
  return stats;
}

PutStats& putStats() {
  static PutStats stats;
  return stats;
}

void sampleKeyedCounters(int64_t nowMs) {
  getStats().groups.sample(nowMs);
  putStats().topics.sample(nowMs);
  putStats().sendBacks.sample(nowMs);
}

// Each network thread caches (registry, topic, group) -> entry, so an update takes the registry
// lock only the first time its thread sees that key; lookups by string_view allocate nothing.
// Registries are process-lifetime singletons, so their addresses are stable cache keys.
KeyedCounters::Entry* KeyedCounters::entry(std::string_view topic, std::string_view group) {
  // The key this thread used last per registry first (a connection mostly repeats its topic).
  struct Last {
    const KeyedCounters* owner = nullptr;
    std::string topic, group;
    Entry* entry = nullptr;
  };
  thread_local Last last[3];
  for (auto& l : last)
    if (l.owner == this && l.topic == topic && l.group == group) return l.entry;
  Entry* e = lookup(topic, group);
  for (auto& l : last) {
    if (l.owner != nullptr && l.owner != this) continue;
    l = Last{this, std::string(topic), std::string(group), e};
    break;
  }
  return e;
}

KeyedCounters::Entry* KeyedCounters::lookup(std::string_view topic, std::string_view group) {
  thread_local std::unordered_map<const KeyedCounters*, StringMap<StringMap<Entry*>>> caches;
  auto& cache = caches[this];
  auto t = cache.find(topic);
  if (t == cache.end()) t = cache.emplace(std::string(topic), StringMap<Entry*>{}).first;
  if (auto g = t->second.find(group); g != t->second.end()) return g->second;
  std::string key(topic);
  if (!group.empty()) key.append("@").append(group);
  std::lock_guard lk(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    it = entries_.emplace(std::move(key), std::make_unique<Entry>()).first;
    // A zero sample at creation: the first update counts in the first rate.
    it->second->samples.push_back({nowMillis(), 0, 0});
  }
  t->second.emplace(std::string(group), it->second.get());
  return it->second.get();
}

void KeyedCounters::add(std::string_view topic, std::string_view group, int64_t count, int64_t bytes) {
  Entry* e = entry(topic, group);
  e->count.fetch_add(count, std::memory_order_relaxed);
  if (bytes != 0) e->bytes.fetch_add(bytes, std::memory_order_relaxed);
}

void KeyedCounters::sample(int64_t nowMs) {
  std::lock_guard lk(mu_);
  for (auto& [key, e] : entries_) {
    e->samples.push_back({nowMs, e->count.load(std::memory_order_relaxed), e->bytes.load(std::memory_order_relaxed)});
    while (e->samples.size() > 61) e->samples.pop_front();
  }
}

KeyedCounters::LastMinute KeyedCounters::lastMinute(std::string_view topic, std::string_view group) const {
  std::string key(topic);
  if (!group.empty()) key.append("@").append(group);
  std::lock_guard lk(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second->samples.size() < 2) return {};
  auto& s = it->second->samples;
  int64_t dt = s.back().ms - s.front().ms;
  if (dt <= 0) return {};
  LastMinute out;
  out.count = s.back().count - s.front().count;
  out.countPerSecond = static_cast<double>(out.count) * 1000.0 / static_cast<double>(dt);
  out.bytesPerSecond = static_cast<double>(s.back().bytes - s.front().bytes) * 1000.0 / static_cast<double>(dt);
  return out;
}

void GetStats::found(std::string_view group, std::string_view topic, int64_t messages, int64_t bytes) {
  foundTimes.fetch_add(1, std::memory_order_relaxed);
  transferredMsgs.fetch_add(messages, std::memory_order_relaxed);
  groups.add(topic, group, messages, bytes);
}

void raiseMaxMicros(std::atomic<int64_t>& max, std::chrono::steady_clock::duration took) {
  atomicRaise(max, int64_t(std::chrono::duration_cast<std::chrono::microseconds>(took).count()),
              std::memory_order_relaxed);
}

void GetStats::noteGetTime(std::chrono::steady_clock::duration took) { raiseMaxMicros(getTimeMaxMicros, took); }
void PutStats::notePutTime(std::chrono::steady_clock::duration took) { raiseMaxMicros(putTimeMaxMicros, took); }

double GetStats::groupTps(const std::string& group, const std::string& topic) const {
  return groups.lastMinute(topic, group).countPerSecond;
}

void PutStats::stored(std::string_view topic, int64_t messages, int64_t bytes) { topics.add(topic, "", messages, bytes); }

KeyedCounters::Totals KeyedCounters::totals() const {
  Totals t;
  std::lock_guard lk(mu_);
  for (const auto& [key, e] : entries_) {
    t.count += e->count.load(std::memory_order_relaxed);
    t.bytes += e->bytes.load(std::memory_order_relaxed);
  }
  return t;
}

}  // namespace rmq::broker
