#include "roles/broker/delivery/delay_levels.h"

#include "store/store_config.h"

namespace rmq::broker {

// The parse itself is the store's (StoreConfig::delayLevelMillis): one grammar for both sides.
Result<DelayLevels> DelayLevels::parse(std::string_view spec) {
  store::StoreConfig cfg;
  cfg.messageDelayLevel = std::string(spec);
  auto millis = cfg.delayLevelMillis();
  if (!millis) return millis.error();
  if (millis->empty()) return makeError(1, "messageDelayLevel is empty");
  DelayLevels out;
  out.millis_ = std::move(*millis);
  return out;
}

int64_t DelayLevels::delayMillis(int32_t level) const {
  if (level <= 0 || millis_.empty()) return 0;
  return millis_[static_cast<size_t>(capLevel(level) - 1)];
}

}  // namespace rmq::broker
