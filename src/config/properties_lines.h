#pragma once
// The logical lines of Java .properties text, with where each one's parts are in the text: the
// one scanner behind parseProperties (config_loader.h) and the config-file editor
// (config_file_update.h), so both agree on what a line is. Comment and blank lines are skipped;
// `\`-continued physical lines make one logical line.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rmq::config {

struct PropertyLine {
  std::string rawKey;    // still escaped (as written)
  std::string rawValue;  // still escaped, surrounding blanks removed, continuations joined
  int firstLine = 0;     // 1-based physical line where it starts
  size_t begin = 0;       // byte offset of the key's first character
  size_t valueBegin = 0;  // byte offset of the value's first character (== end for an empty value)
  size_t end = 0;         // byte offset just past the value (before trailing blanks and the line break)
};

// Every key/value line of `text` (a leading UTF-8 byte order mark is skipped), in file order.
std::vector<PropertyLine> scanPropertyLines(std::string_view text);

}  // namespace rmq::config
