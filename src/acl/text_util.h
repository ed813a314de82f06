#pragma once
// String helpers with Java's semantics where the ACL code relies on them: String.trim (chars
// <= ' ') and commons-lang StringUtils.split (separator runs collapse, no empty tokens).
#include <string_view>
#include <vector>

namespace rmq::acl {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

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

}  // namespace rmq::acl
