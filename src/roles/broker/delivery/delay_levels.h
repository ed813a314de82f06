#pragma once
// messageDelayLevel parsing (PROTOCOL.md §10.1): "1s 5s 10s 30s 1m ..." -> level i (1-based)
// -> milliseconds (grammar: store::StoreConfig::delayLevelMillis), plus level helpers.
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace rmq::broker {

class DelayLevels {
 public:
  static Result<DelayLevels> parse(std::string_view spec);
  int32_t maxLevel() const { return static_cast<int32_t>(millis_.size()); }
  // Delay of a level, clamped into [1, maxLevel]; level <= 0 -> 0.
  int64_t delayMillis(int32_t level) const;
  // Level capped at maxLevel (store put path).
  int32_t capLevel(int32_t level) const { return level > maxLevel() ? maxLevel() : level; }
  int32_t queueIdOf(int32_t level) const { return capLevel(level) - 1; }

 private:
  std::vector<int64_t> millis_;  // index level-1
};

}  // namespace rmq::broker
