#pragma once
// Consumer lag of one queue, the one definition the broker (the rocketmq_group_diff metrics) and
// the client side (ConsumeStats::diffTotal, rmqadmin consumerProgress rows, the console) share:
// messages written to the queue that the group has not consumed yet. A committed offset past the
// queue's end (a store that lost its tail) is no lag, never a negative one. Java 4.9.8's tools print
// the raw brokerOffset - consumerOffset (negative there), and GET_BROKER_CONSUME_STATS's totalDiff
// on the wire is that raw sum (stats_processor.cpp; test/reference/README.md "lag/").
#include <algorithm>
#include <cstdint>

namespace rmq {

inline int64_t queueLag(int64_t brokerOffset, int64_t consumerOffset) {
  return std::max<int64_t>(0, brokerOffset - consumerOffset);
}

}  // namespace rmq
