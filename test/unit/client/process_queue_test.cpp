#include <doctest/doctest.h>

#include "client/consumer/process_queue.h"

using namespace rmq;
using namespace rmq::client;

namespace {

std::vector<MessageExt> at(std::initializer_list<int64_t> offsets) {
  std::vector<MessageExt> out;
  for (int64_t o : offsets) {
    MessageExt m;
    m.queueOffset = o;
    out.push_back(m);
  }
  return out;
}

}  // namespace

TEST_CASE("process queue commits the lowest offset still in flight, or one past the last") {
  ProcessQueue pq;
  CHECK(pq.remove({}) == -1);  // nothing pulled yet: nothing to commit
  pq.put(at({10, 11, 12, 13}));
  CHECK(pq.count() == 4);
  CHECK(pq.span() == 3);
  CHECK(pq.remove(at({11, 12})) == 10);  // 10 still being consumed: commit stays at 10
  CHECK(pq.remove(at({10})) == 13);
  CHECK(pq.remove(at({13})) == 14);     // all done: next offset to consume
  CHECK(pq.count() == 0);
  pq.put(at({14}));
  CHECK(pq.maxOffset() == 14);
  CHECK(pq.minOffset() == 14);
}
