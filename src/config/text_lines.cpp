#include "config/text_lines.h"

#include <algorithm>

namespace rmq::config {

TextLines::TextLines(std::string_view text) : text_(text), starts_{0} {
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts_.push_back(i + 1);
}

size_t TextLines::offset(size_t line, size_t column) const {
  if (line == 0) return 0;
  if (line > starts_.size()) return text_.size();
  size_t at = starts_[line - 1];
  for (size_t c = 1; c < column && at < text_.size() && text_[at] != '\n'; ++c) {
    ++at;  // past the lead byte, then any continuation bytes
    while (at < text_.size() && (static_cast<unsigned char>(text_[at]) & 0xC0) == 0x80) ++at;
  }
  return at;
}

size_t TextLines::nextLineStart(size_t offset) const {
  auto next = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return next == starts_.end() ? text_.size() : *next;
}

}  // namespace rmq::config
