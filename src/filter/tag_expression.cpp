#include "filter/tag_expression.h"

#include <algorithm>

namespace rmq::filter {

namespace {

std::string_view trim(std::string_view s) {
  auto isSpace = [](char c) { return static_cast<unsigned char>(c) <= ' '; };  // Java String.trim
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

TagExpression parseTagExpression(std::string_view text) {
  TagExpression out;
  std::string_view whole = trim(text);
  if (whole.empty() || whole == "*") {
    out.subString.assign(1, '*');  // not = "*": GCC 12's -Wrestrict false positive on that assignment
    return out;
  }
  out.subString = std::string(text);
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t sep = text.find("||", pos);
    std::string_view part = trim(text.substr(pos, sep == std::string_view::npos ? text.npos : sep - pos));
    if (!part.empty() && std::find(out.tags.begin(), out.tags.end(), part) == out.tags.end()) {
      out.tags.emplace_back(part);
      int32_t code = javaStringHash(part);
      if (std::find(out.codes.begin(), out.codes.end(), code) == out.codes.end()) out.codes.push_back(code);
    }
    if (sep == std::string_view::npos) break;
    pos = sep + 2;
  }
  return out;
}

}  // namespace rmq::filter
