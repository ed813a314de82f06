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

TEST_CASE("process queue info: cached offsets, count and body MiB, and when consumed messages last left") {
  ProcessQueue pq;
  const int64_t created = pq.lastConsumeTimestamp;
  CHECK(created > 0);  // Java: the creation time until something is consumed
  auto empty = pq.cached();
  CHECK(empty.count == 0);
  CHECK(empty.minOffset == 0);
  CHECK(empty.maxOffset == 0);
  auto msgs = messagesAt({20, 21, 22});
  for (auto& m : msgs) m.body.assign(700 * 1024, 'x');  // 2.05 MiB in all
  pq.put(msgs);
  pq.put(messagesAt({21}));  // pulled again: neither counted nor sized twice
  auto c = pq.cached();
  CHECK(c.minOffset == 20);
  CHECK(c.maxOffset == 22);
  CHECK(c.count == 3);
  CHECK(c.sizeInMiB == 2);
  pq.remove({msgs[0], msgs[2]});
  c = pq.cached();
  CHECK(c.minOffset == 21);
  CHECK(c.maxOffset == 21);
  CHECK(c.sizeInMiB == 0);  // 700 KiB left
  CHECK(pq.lastConsumeTimestamp >= created);
}
