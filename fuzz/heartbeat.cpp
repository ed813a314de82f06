// Broker: HEART_BEAT body (PROTOCOL.md §3.5) and what the broker compiles from it: each
// subscription's filter expression (tag or SQL92).
#include "filter/filter.h"
#include "fuzz/fuzz_input.h"
#include "roles/broker/clients/heartbeat_data.h"

using namespace rmq;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto hb = broker::parseHeartbeat(fuzz::input(data, size));
  if (!hb) return 0;
  for (auto& consumer : hb->consumers)
    for (auto& sub : consumer.subscriptions) (void)filter::compileExpression(sub.expressionType, sub.subString);
  return 0;
}
