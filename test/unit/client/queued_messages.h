#pragma once
// Pulled messages as the consumer's queues hold them, for the process / orderly queue tests.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/message.h"

namespace rmq::client::test {

// One message per queue offset, in the order given; body "m<offset>".
inline std::vector<MessageExt> messagesAt(std::initializer_list<int64_t> offsets) {
  std::vector<MessageExt> out;
  for (int64_t o : offsets) {
    MessageExt m;
    m.queueOffset = o;
    m.body = "m" + std::to_string(o);
    out.push_back(m);
  }
  return out;
}

}  // namespace rmq::client::test
