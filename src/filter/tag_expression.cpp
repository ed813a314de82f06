#include "filter/tag_expression.h"

#include <algorithm>

namespace rmq::filter {

namespace {

// Decodes one UTF-8 sequence starting at s[i]; malformed bytes count as one code point each
// (Java would have decoded them to U+FFFD; either way the hash stays deterministic).
uint32_t nextCodePoint(std::string_view s, size_t& i) {
  auto b = static_cast<uint8_t>(s[i]);
  int extra = b < 0x80 ? 0 : (b >> 5) == 0x6 ? 1 : (b >> 4) == 0xE ? 2 : (b >> 3) == 0x1E ? 3 : -1;
  if (extra <= 0 || i + extra >= s.size()) {
    ++i;
    return extra == 0 ? b : 0xFFFD;
  }
  uint32_t cp = b & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    auto c = static_cast<uint8_t>(s[i + k]);
    if ((c & 0xC0) != 0x80) { ++i; return 0xFFFD; }
    cp = (cp << 6) | (c & 0x3F);
  }
  i += extra + 1;
  return cp;
}

std::string_view trim(std::string_view s) {
  auto isSpace = [](char c) { return static_cast<unsigned char>(c) <= ' '; };  // Java String.trim
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

int32_t javaStringHash(std::string_view utf8) {
  uint32_t h = 0;
  size_t i = 0;
  while (i < utf8.size()) {
    uint32_t cp = nextCodePoint(utf8, i);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      h = h * 31 + (0xD800 + (cp >> 10));
      h = h * 31 + (0xDC00 + (cp & 0x3FF));
    } else {
      h = h * 31 + cp;
    }
  }
  return static_cast<int32_t>(h);
}

TagExpression parseTagExpression(std::string_view text) {
  TagExpression out;
  std::string_view whole = trim(text);
  if (whole.empty() || whole == "*") {
    out.subString = "*";
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
