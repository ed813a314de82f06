#pragma once
// Line/column positions (1-based, columns in code points, as toml++ reports them) <-> byte
// offsets of one UTF-8 text, for editing a config file where a parser located something.
#include <cstddef>
#include <string_view>
#include <vector>

namespace rmq::config {

class TextLines {
 public:
  explicit TextLines(std::string_view text);
  // Byte offset of (line, column); past the end of its line or of the text is clamped to it.
  size_t offset(size_t line, size_t column) const;
  // Byte offset just past the line break of the line holding `offset` (the text's size on the last line).
  size_t nextLineStart(size_t offset) const;

 private:
  std::string_view text_;
  std::vector<size_t> starts_;  // byte offset of each line's first character
};

}  // namespace rmq::config
