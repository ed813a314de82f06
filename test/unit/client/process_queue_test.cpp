#include <doctest/doctest.h>

#include "client/consumer/process_queue.h"
#include "unit/client/queued_messages.h"

using namespace rmq;
using namespace rmq::client;

using rmq::client::test::messagesAt;

TEST_CASE("process queue commits the lowest offset still in flight, or one past the last") {
  ProcessQueue pq;
  CHECK(pq.remove({}) == -1);  // nothing pulled yet: nothing to commit
  pq.put(messagesAt({10, 11, 12, 13}));
  CHECK(pq.count() == 4);
  CHECK(pq.span() == 3);
  CHECK(pq.remove(messagesAt({11, 12})) == 10);  // 10 still being consumed: commit stays at 10
  CHECK(pq.remove(messagesAt({10})) == 13);
  CHECK(pq.remove(messagesAt({13})) == 14);     // all done: next offset to consume
  CHECK(pq.count() == 0);
  pq.put(messagesAt({14}));
  CHECK(pq.maxOffset() == 14);
  CHECK(pq.minOffset() == 14);
}
