#include "roles/broker/stats/broker_stats.h"

#include <charconv>
#include <unordered_map>

#include "common/atomic_max.h"
#include "common/wall_clock.h"

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

PutStats& putStats() {
  static PutStats stats;
  return stats;
}

namespace {
// BROKER_PUT_NUMS / BROKER_GET_NUMS: one item per broker, keyed by its cluster name; Java adds
// the value only (times stay 0, so avgpt is 0). Its totals are read from the keyed counters when
// sampling, so the hot path pays nothing for them.
struct BrokerTotals {
  std::mutex mu;
  SampledWindows put, get;
};
BrokerTotals& brokerTotals() {
  static BrokerTotals totals;
  return totals;
}
}  // namespace

void sampleKeyedCounters(int64_t nowMs, const DueWindows& due) {
  getStats().groups.sample(nowMs);
  putStats().topics.sample(nowMs);
  putStats().sendBacks.sample(nowMs);
  if (due.none()) return;
  for (auto* k : {&getStats().groups, &getStats().latency, &putStats().topics, &putStats().sendBacks})
    k->sampleWindows(due, nowMs);
  auto& b = brokerTotals();
  CallTotals put{0, putStats().topics.totals().count, 0};
  CallTotals get{0, getStats().transferredMsgs.load(std::memory_order_relaxed), 0};
  std::lock_guard lk(b.mu);
  b.put.sampleDue(due, nowMs, put);
  b.get.sampleDue(due, nowMs, get);
}

std::optional<BrokerStatsFigures> brokerStatsItem(std::string_view statsName, std::string_view statsKey,
                                                  std::string_view clusterName) {
  if (statsName == "TOPIC_PUT_NUMS") return putStats().topics.windows(statsKey, StatsValue::Count);
  if (statsName == "TOPIC_PUT_SIZE") return putStats().topics.windows(statsKey, StatsValue::Bytes);
  if (statsName == "GROUP_GET_NUMS") return getStats().groups.windows(statsKey, StatsValue::Count);
  if (statsName == "GROUP_GET_SIZE") return getStats().groups.windows(statsKey, StatsValue::Bytes);
  if (statsName == "GROUP_GET_LATENCY") return getStats().latency.windows(statsKey, StatsValue::Count);
  if (statsName == "SNDBCK_PUT_NUMS") return putStats().sendBacks.windows(statsKey, StatsValue::Count);
  bool brokerPut = statsName == "BROKER_PUT_NUMS", brokerGet = statsName == "BROKER_GET_NUMS";
  if ((!brokerPut && !brokerGet) || statsKey != clusterName) return std::nullopt;
  // Java creates the item at the first put / pulled message.
  int64_t total = brokerPut ? putStats().topics.totals().count : getStats().transferredMsgs.load(std::memory_order_relaxed);
  if (total == 0) return std::nullopt;
  auto& b = brokerTotals();
  std::lock_guard lk(b.mu);
  return (brokerPut ? b.put : b.get).all(StatsValue::Count);
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
  thread_local Last last[4];
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
  e->times.fetch_add(1, std::memory_order_relaxed);
}

void KeyedCounters::sampleWindows(const DueWindows& due, int64_t nowMs) {
  std::lock_guard lk(mu_);
  for (auto& [key, e] : entries_) {
    CallTotals t{e->times.load(std::memory_order_relaxed), e->count.load(std::memory_order_relaxed),
                 e->bytes.load(std::memory_order_relaxed)};
    e->windows.sampleDue(due, nowMs, t);
  }
}

std::optional<BrokerStatsFigures> KeyedCounters::windows(std::string_view key, StatsValue value) const {
  std::lock_guard lk(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second->windows.all(value);
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

void GetStats::noteLatency(std::string_view group, std::string_view topic, int32_t queueId,
                           std::chrono::steady_clock::duration took) {
  thread_local std::string queueTopic;  // "queueId@topic", reused: no allocation once warmed up
  char digits[16];
  auto end = std::to_chars(digits, digits + sizeof digits, queueId).ptr;
  queueTopic.assign(digits, end).append("@").append(topic);
  latency.add(queueTopic, group, std::chrono::duration_cast<std::chrono::milliseconds>(took).count(), 0);
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
