#include "roles/broker/delay_levels.h"

#include <charconv>

#include <fmt/format.h>

namespace rmq::broker {

Result<DelayLevels> DelayLevels::parse(std::string_view spec) {
  DelayLevels out;
  size_t pos = 0;
  while (pos < spec.size()) {
    while (pos < spec.size() && spec[pos] == ' ') ++pos;
    if (pos >= spec.size()) break;
    size_t end = spec.find(' ', pos);
    if (end == std::string_view::npos) end = spec.size();
    std::string_view item = spec.substr(pos, end - pos);
    pos = end;
    int64_t n = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
    std::string_view unit(p, item.data() + item.size() - p);
    int64_t factor = 0;
    if (unit == "ms") factor = 1;
    else if (unit == "s") factor = 1000;
    else if (unit == "m") factor = 60 * 1000;
    else if (unit == "h") factor = 60 * 60 * 1000;
    else if (unit == "d") factor = 24 * 60 * 60 * 1000;
    if (ec != std::errc() || p == item.data() || n < 0 || factor == 0) {
      return makeError(1, fmt::format("bad messageDelayLevel item '{}' (want <n>s|m|h|d)", item));
    }
    out.millis_.push_back(n * factor);
  }
  if (out.millis_.empty()) return makeError(1, "messageDelayLevel is empty");
  return out;
}

int64_t DelayLevels::delayMillis(int32_t level) const {
  if (level <= 0 || millis_.empty()) return 0;
  return millis_[static_cast<size_t>(capLevel(level) - 1)];
}

}  // namespace rmq::broker
