#pragma once
// splitTrimmed: "a; b;;c " -> {"a", "b", "c"}: the items of a separated list, blanks trimmed,
// empty items dropped (namesrvAddr, failoverEtcdEndpoints, ...).
#include <string>
#include <string_view>
#include <vector>

namespace rmq {

inline std::vector<std::string> splitTrimmed(std::string_view text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view part = text.substr(start, end - start);
    size_t b = part.find_first_not_of(" \t"), e = part.find_last_not_of(" \t");
    if (b != std::string_view::npos) out.emplace_back(part.substr(b, e - b + 1));
    start = end + 1;
  }
  return out;
}

}  // namespace rmq
