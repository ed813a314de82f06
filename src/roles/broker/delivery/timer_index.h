#pragma once
// The timer's in-memory index and its durable progress record (pure: no I/O; README "Timer").
//
// TimerIndex: the pending timer messages ordered by key (delivery ms, queue offset in
// rmq_sys_wheel_timer queue 0): a binary heap of 16-byte entries. Bodies stay in the commit log;
// 1,000,000 pending cost 16 MB (up to 32 MB while the vector grows).
//
// TimerProgress: what the delivering master appends to rmq_sys_wheel_timer queue 1 after it
// delivered something (through the commit log: a slave and a promoted slave have it). Invariant
// when written: every unit of queue 0 below `readOffset` whose key is <= (doneMs, doneOffset) was
// delivered or cancelled; every unit from `readOffset` on is pending; no pending unit lies below
// `scanFrom`. A restart reads the last record and rebuilds the index from [scanFrom, end).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rmq::broker {

struct TimerEntry {
  int64_t deliverMs = 0;
  int64_t queueOffset = 0;
  friend bool operator<(const TimerEntry& a, const TimerEntry& b) {
    return a.deliverMs != b.deliverMs ? a.deliverMs < b.deliverMs : a.queueOffset < b.queueOffset;
  }
  friend bool operator<=(const TimerEntry& a, const TimerEntry& b) { return !(b < a); }
};

class TimerIndex {
 public:
  void add(TimerEntry e);
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const TimerEntry& top() const { return heap_.front(); }
  TimerEntry pop();
  // Pops every entry due at the top's millisecond (a delete marker and its target share it).
  std::vector<TimerEntry> popGroup();
  int64_t minQueueOffset() const;  // O(n); INT64_MAX when empty
  size_t memoryBytes() const { return heap_.capacity() * sizeof(TimerEntry); }
  void clear() { heap_.clear(); }

 private:
  std::vector<TimerEntry> heap_;  // min-heap by key
};

struct TimerProgress {
  int64_t doneMs = INT64_MIN;  // (doneMs, doneOffset): the done key
  int64_t doneOffset = -1;
  int64_t readOffset = 0;
  int64_t scanFrom = 0;
  TimerEntry doneKey() const { return {doneMs, doneOffset}; }
  // Is this unit of queue 0 still pending under this record?
  bool pending(const TimerEntry& unit) const { return unit.queueOffset >= readOffset || doneKey() < unit; }
};
// "timer-progress v1 <doneMs> <doneOffset> <readOffset> <scanFrom>"
std::string encodeProgress(const TimerProgress& p);
std::optional<TimerProgress> decodeProgress(std::string_view body);

}  // namespace rmq::broker
