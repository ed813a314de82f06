#include "roles/broker/pop/invisibility_timers.h"

#include <algorithm>
#include <tuple>

namespace rmq::broker::pop {

namespace {
// std heap functions build a max-heap: "later" puts the earliest entry at the front.
bool later(const TimerRef& a, const TimerRef& b) {
  return std::tie(a.visibleAt, *a.key, a.queueOffset) > std::tie(b.visibleAt, *b.key, b.queueOffset);
}
}  // namespace

void InvisibilityTimers::add(const TimerRef& t) {
  heap_.push_back(t);
  std::push_heap(heap_.begin(), heap_.end(), later);
}

std::vector<TimerRef> InvisibilityTimers::takeDue(int64_t now) {
  std::vector<TimerRef> out;
  while (!heap_.empty() && heap_.front().visibleAt <= now) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    out.push_back(heap_.back());
    heap_.pop_back();
  }
  return out;
}

}  // namespace rmq::broker::pop
