#pragma once
// String helpers with Java's semantics where the ACL code relies on them: String.trim (chars
// <= ' ') and commons-lang StringUtils.split (separator runs collapse, no empty tokens).
#include <string_view>
#include <vector>

#include "common/text_split.h"

namespace rmq::acl {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

using rmq::splitNonEmpty;  // common/text_split.h

}  // namespace rmq::acl
