#pragma once
// Whole-string decimal parse for the pop log and receipt handles (no sign games, no trailing text).
#include <charconv>
#include <string_view>

namespace rmq::broker::pop {

template <class T>
bool parseNumber(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

}  // namespace rmq::broker::pop
