#pragma once
// Separated lists: splitNonEmpty ("a,,b" -> {"a", "b"}: separator runs collapse, as commons-lang's
// StringUtils.split the ACL code follows) and splitTrimmed ("a; b;;c " -> {"a", "b", "c"}: items
// with blanks trimmed, empty ones dropped: namesrvAddr, failoverEtcdEndpoints, ...).
#include <string>
#include <string_view>
#include <vector>

namespace rmq {

inline std::vector<std::string_view> splitNonEmpty(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(sep, i);
    if (j == std::string_view::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

inline std::vector<std::string> splitTrimmed(std::string_view text, char sep) {
  std::vector<std::string> out;
  for (auto part : splitNonEmpty(text, sep)) {
    size_t b = part.find_first_not_of(" \t"), e = part.find_last_not_of(" \t");
    if (b != std::string_view::npos) out.emplace_back(part.substr(b, e - b + 1));
  }
  return out;
}

}  // namespace rmq
