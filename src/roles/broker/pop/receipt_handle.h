#pragma once
// ReceiptHandle: what a popped message carries so that ack / changeInvisible find its delivery.
// Text form = Java 5.x's extraInfo (ExtraInfoUtil / ReceiptHandle, space-separated):
//   startOffset popTime invisibleTime reviveQid topicType brokerName queueId queueOffset commitLogOffset
// A Java remoting client builds the first eight itself from the POP answer's header (its POP_CK), so
// the ninth (commitLogOffset, needed by the gRPC dead-letter forward) is optional on decode.
// A delivery is identified by (group, topic, queueId, queueOffset, popTime): popTime is unique per
// delivery of a message (PopService makes it so), so a handle of an earlier delivery never matches.
// Pure; any thread.
#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq::broker::pop {

inline constexpr int32_t kNormalReviveQid = 0;  // reviveQid we write: a normal group
inline constexpr int32_t kFifoReviveQid = 999;  // Java's value for an orderly (FIFO) pop

struct ReceiptHandle {
  int64_t startOffset = 0;  // the batch's first queue offset in this queue (Java: the CK's)
  int64_t popTime = 0;
  int64_t invisibleTime = 0;
  int32_t reviveQid = kNormalReviveQid;
  int32_t topicType = 0;  // 0 normal (we never hand out retry-topic messages)
  std::string brokerName;
  int32_t queueId = 0;
  int64_t queueOffset = 0;
  int64_t commitLogOffset = -1;  // -1: not in the text (a Java client's POP_CK)

  int64_t visibleAt() const { return popTime + invisibleTime; }
  std::string encode() const;
  bool operator==(const ReceiptHandle&) const = default;
};

// An error (code NO_MESSAGE, "receipt handle garbled: ...") when `text` is not a handle.
Result<ReceiptHandle> decodeReceiptHandle(std::string_view text);

}  // namespace rmq::broker::pop
