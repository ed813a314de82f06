#pragma once
// Tag subscription expressions (PROTOCOL.md §11.1): "*", "TagA || TagB". Shared by the broker
// (ConsumeQueue hash match) and the client (heartbeat tagsSet/codeSet, client-side re-check).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/message_codec.h"

namespace rmq::filter {

// Java String.hashCode() over UTF-16 code units (common/message_codec.h): the ConsumeQueue tags
// code and SubscriptionData.codeSet.
using rmq::javaStringHash;

struct TagExpression {
  std::string subString;            // "*" for match-all, otherwise the expression as given
  std::vector<std::string> tags;    // trimmed, non-empty parts in order, duplicates removed
  std::vector<int32_t> codes;       // javaStringHash of each tag (same order, duplicates removed)
  bool matchAll() const { return tags.empty(); }
};

// Never fails: null/empty/"*" is match-all; an expression made only of separators is match-all
// too (Java ends up with an empty tagsSet, which matches everything on the broker).
TagExpression parseTagExpression(std::string_view text);

}  // namespace rmq::filter
