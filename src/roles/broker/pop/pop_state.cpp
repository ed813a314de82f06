#include "roles/broker/pop/pop_state.h"

#include <algorithm>

namespace rmq::broker::pop {

int64_t PopQueue::committedOffset() const {
  if (inFlight.empty()) return nextOffset;
  return std::min(nextOffset, inFlight.begin()->first);
}

bool PopQueue::fifoBlocked(int64_t now) const {
  return std::any_of(inFlight.begin(), inFlight.end(), [now](const auto& e) { return e.second.visibleAt() > now; });
}

PopQueue* PopState::find(const QueueKey& key) {
  auto it = queues_.find(key);
  return it == queues_.end() ? nullptr : &it->second;
}

size_t PopState::apply(const PopEvent& e) {
  PopQueue& q = queues_[e.key];
  size_t matched = 0;
  switch (e.kind) {
    case PopEvent::Kind::Pop:
      q.nextOffset = std::max(q.nextOffset, e.nextOffset);
      for (const auto& it : e.items) {
        auto [pos, added] = q.inFlight.insert_or_assign(
            it.queueOffset, InFlight{it.queueOffset, it.commitLogOffset, it.deliveries, e.popTime, e.invisibleTime});
        if (added) ++inFlight_;
        q.due.erase(it.queueOffset);
        ++matched;
      }
      break;
    case PopEvent::Kind::Ack:
      for (const auto& it : e.items) {
        auto f = q.inFlight.find(it.queueOffset);
        if (f == q.inFlight.end() || f->second.popTime != it.popTime) continue;
        q.inFlight.erase(f);
        q.due.erase(it.queueOffset);
        --inFlight_;
        ++matched;
      }
      break;
    case PopEvent::Kind::Change:
      for (const auto& it : e.items) {
        auto f = q.inFlight.find(it.queueOffset);
        if (f == q.inFlight.end() || f->second.popTime != it.popTime) continue;
        f->second.popTime = e.popTime;
        f->second.invisibleTime = e.invisibleTime;
        q.due.erase(it.queueOffset);
        ++matched;
      }
      break;
  }
  return matched;
}

void PopState::clear() {
  queues_.clear();
  inFlight_ = 0;
}

}  // namespace rmq::broker::pop
