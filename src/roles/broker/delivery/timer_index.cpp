#include "roles/broker/delivery/timer_index.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <functional>

namespace rmq::broker {

namespace {
// std::*_heap build a max-heap under the comparator: greater-than gives the earliest key on top.
bool later(const TimerEntry& a, const TimerEntry& b) { return b < a; }
constexpr std::string_view kMagic = "timer-progress v1";
}  // namespace

void TimerIndex::add(TimerEntry e) {
  heap_.push_back(e);
  std::push_heap(heap_.begin(), heap_.end(), later);
}

TimerEntry TimerIndex::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), later);
  TimerEntry e = heap_.back();
  heap_.pop_back();
  return e;
}

std::vector<TimerEntry> TimerIndex::popGroup() {
  std::vector<TimerEntry> group;
  if (heap_.empty()) return group;
  const int64_t ms = top().deliverMs;
  while (!heap_.empty() && top().deliverMs == ms) group.push_back(pop());
  return group;
}

int64_t TimerIndex::minQueueOffset() const {
  int64_t m = INT64_MAX;
  for (const auto& e : heap_) m = std::min(m, e.queueOffset);
  return m;
}

std::string encodeProgress(const TimerProgress& p) {
  return std::string(kMagic) + " " + std::to_string(p.doneMs) + " " + std::to_string(p.doneOffset) + " " +
         std::to_string(p.readOffset) + " " + std::to_string(p.scanFrom);
}

std::optional<TimerProgress> decodeProgress(std::string_view body) {
  if (body.substr(0, kMagic.size()) != kMagic) return std::nullopt;
  body.remove_prefix(kMagic.size());
  int64_t v[4];
  const char* p = body.data();
  const char* end = body.data() + body.size();
  for (int64_t& x : v) {
    if (p == end || *p != ' ') return std::nullopt;
    auto [next, ec] = std::from_chars(p + 1, end, x);
    if (ec != std::errc()) return std::nullopt;
    p = next;
  }
  if (p != end) return std::nullopt;
  return TimerProgress{v[0], v[1], v[2], v[3]};
}

}  // namespace rmq::broker
