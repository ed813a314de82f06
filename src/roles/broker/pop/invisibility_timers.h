#pragma once
// InvisibilityTimers: a min-heap of (visibleAt, queue, offset, popTime) — one entry per delivery,
// keyed by the millisecond its invisible time ends. The timer thread sleeps until nextAt() and
// takes what is due, in time order (ties: queue, then offset). Entries are never removed early:
// an ack or a change leaves a stale entry, recognised when it fires (its popTime no longer matches
// the message's delivery) and dropped; compaction rebuilds the heap when stale ones dominate.
// Not thread-safe (PopService locks around it).
#include <cstdint>
#include <limits>
#include <vector>

#include "roles/broker/pop/pop_state.h"

namespace rmq::broker::pop {

struct TimerRef {
  int64_t visibleAt = 0;
  const QueueKey* key = nullptr;  // a PopState map key (stable)
  int64_t queueOffset = 0;
  int64_t popTime = 0;
};

class InvisibilityTimers {
 public:
  void add(const TimerRef& t);
  // Every entry with visibleAt <= now, earliest first.
  std::vector<TimerRef> takeDue(int64_t now);
  int64_t nextAt() const { return heap_.empty() ? std::numeric_limits<int64_t>::max() : heap_.front().visibleAt; }
  size_t size() const { return heap_.size(); }
  size_t memoryBytes() const { return heap_.capacity() * sizeof(TimerRef); }
  void clear() { heap_.clear(); }

 private:
  std::vector<TimerRef> heap_;
};

}  // namespace rmq::broker::pop
