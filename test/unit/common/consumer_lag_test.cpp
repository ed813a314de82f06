// queueLag: the one lag definition of the broker and the client side.
#include <doctest/doctest.h>

#include "common/consumer_lag.h"

TEST_CASE("queueLag: messages not consumed yet; a committed offset past the queue's end is no lag") {
  CHECK(rmq::queueLag(10, 4) == 6);
  CHECK(rmq::queueLag(10, 10) == 0);
  CHECK(rmq::queueLag(0, 0) == 0);
  CHECK(rmq::queueLag(3, 5) == 0);  // the store lost its tail after the group committed
}
