#pragma once
// PopState: the in-memory pop state of every (group, topic, queue) a POP consumer used: the next
// offset never popped, the messages in flight (popped, not acked, by queue offset) and which of
// them are due (invisible time over, waiting to be popped again). Changed only by applying
// PopEvents, the same records the pop log stores (pop_log.h), so a replay of the log rebuilds
// exactly the state the live broker had. Not thread-safe: PopService locks around it.
#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace rmq::broker::pop {

struct QueueKey {
  std::string group;
  std::string topic;
  int32_t queueId = 0;
  auto operator<=>(const QueueKey&) const = default;
};

struct InFlight {
  int64_t queueOffset = 0;
  int64_t commitLogOffset = 0;
  int32_t deliveries = 1;  // deliveries so far, this one included (= the delivery attempt)
  int64_t popTime = 0;     // of this delivery (unique per delivery of this message)
  int64_t invisibleTime = 0;
  int64_t visibleAt() const { return popTime + invisibleTime; }
};

struct PopQueue {
  int64_t nextOffset = -1;  // first offset never popped; -1: the group has not popped this queue yet
  std::map<int64_t, InFlight> inFlight;  // by queue offset
  std::set<int64_t> due;                 // offsets of inFlight whose invisible time is over
  std::string attemptId;                 // FIFO: the attempt that popped the current batch (not logged)
  uint64_t deadLettered = 0;             // moved to %DLQ%<group> since start (a figure; not logged)

  // The consumer offset of the group (consumerProgress): every message below it is done.
  int64_t committedOffset() const;
  // FIFO: a queue is held while a message of its batch is in flight and still invisible.
  bool fifoBlocked(int64_t now) const;
};

// One change of the pop state; also one record of the pop log.
struct PopItem {
  int64_t queueOffset = 0;
  int64_t commitLogOffset = 0;  // Pop only
  int32_t deliveries = 1;       // Pop only
  int64_t popTime = 0;          // Ack / Change: the delivery it refers to
};
struct PopEvent {
  enum class Kind : char { Pop = 'P', Ack = 'A', Change = 'C' };
  Kind kind = Kind::Pop;
  QueueKey key;
  int64_t popTime = 0;        // Pop, Change: the new delivery's
  int64_t invisibleTime = 0;  // Pop, Change: the new delivery's
  int64_t nextOffset = -1;    // Pop: the queue's next offset after this pop
  std::vector<PopItem> items;
};

class PopState {
 public:
  PopQueue& queue(const QueueKey& key) { return queues_[key]; }
  PopQueue* find(const QueueKey& key);
  // Applies one event; returns how many items matched (an Ack/Change of a delivery that is no
  // longer in flight matches nothing and changes nothing).
  size_t apply(const PopEvent& e);
  // The map's keys are stable (queues are never erased): timers keep pointers to them.
  std::map<QueueKey, PopQueue>& queues() { return queues_; }
  const std::map<QueueKey, PopQueue>& queues() const { return queues_; }
  size_t inFlightCount() const { return inFlight_; }
  void clear();

 private:
  std::map<QueueKey, PopQueue> queues_;
  size_t inFlight_ = 0;
};

}  // namespace rmq::broker::pop
