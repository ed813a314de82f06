// Java .properties text -> ConfigEntry list. Supports what RocketMQ's shipped files and
// MixAll.properties2String produce: `key=value` / `key: value` / `key value`, `#` and `!`
// comments, surrounding whitespace trimmed, backslash line continuation and the escapes
// \t \n \r \f \\ \= \: \uXXXX (UTF-16 surrogate pairs joined). Text is UTF-8 (comments in any
// language or encoding); a key or value that is not well-formed UTF-8 is an error naming the line.
// A leading byte order mark is skipped.
#include <fmt/format.h>

#include <optional>

#include "config/config_loader.h"
#include "config/properties_lines.h"

namespace rmq::config {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\f'; }

std::string_view trimLeft(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  return s;
}

void appendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// The four hex digits of a \uXXXX escape starting at s[at] (the 'u'), or nullopt.
std::optional<uint32_t> hexUnit(std::string_view s, size_t at) {
  if (at >= s.size() || s[at] != 'u' || s.size() - at < 5) return std::nullopt;
  uint32_t cp = 0;
  for (size_t k = 1; k <= 4; ++k) {
    char h = s[at + k];
    cp <<= 4;
    if (h >= '0' && h <= '9') cp |= h - '0';
    else if (h >= 'a' && h <= 'f') cp |= h - 'a' + 10;
    else if (h >= 'A' && h <= 'F') cp |= h - 'A' + 10;
    else return std::nullopt;
  }
  return cp;
}

// Unescapes one logical line's key or value part.
Result<std::string> unescape(std::string_view s, const std::string& origin) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 == s.size()) { out += c; continue; }
    char e = s[++i];
    switch (e) {
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        auto cp = hexUnit(s, i);
        if (!cp) return makeError(1, fmt::format("config error at {}: bad \\u escape", origin));
        i += 4;
        // Java strings are UTF-16: a supplementary character comes as a \uD8xx\uDCxx pair.
        if (*cp >= 0xD800 && *cp < 0xDC00 && i + 2 < s.size() && s[i + 1] == '\\') {
          auto low = hexUnit(s, i + 2);
          if (low && *low >= 0xDC00 && *low < 0xE000) {
            *cp = 0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00);
            i += 6;
          }
        }
        appendUtf8(out, *cp);
        break;
      }
      default: out += e;  // \\ \= \: \# \! and unknown escapes keep the character
    }
  }
  return out;
}

// Splits a logical line into key and value at the first unescaped '=', ':' or whitespace.
std::pair<std::string_view, std::string_view> splitKeyValue(std::string_view line) {
  size_t i = 0;
  for (; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\\') { ++i; continue; }
    if (c == '=' || c == ':' || isSpace(c)) break;
  }
  std::string_view key = line.substr(0, i);
  std::string_view rest = trimLeft(line.substr(std::min(i, line.size())));
  if (!rest.empty() && (rest.front() == '=' || rest.front() == ':')) rest = trimLeft(rest.substr(1));
  return {key, rest};
}

// True when the line ends in an odd number of backslashes (continues on the next line).
bool continues(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[line.size() - 1 - n] == '\\') ++n;
  return n % 2 == 1;
}

// Well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF), what TOML and JSON demand:
// a value that is not could be taken but never printed back (--print-config, GET_*_CONFIG).
bool validUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    auto b = static_cast<unsigned char>(s[i]);
    size_t n = b < 0x80 ? 0 : b >= 0xC2 && b <= 0xDF ? 1 : b >= 0xE0 && b <= 0xEF ? 2 : b >= 0xF0 && b <= 0xF4 ? 3 : 4;
    if (n == 4 || s.size() - i <= n) return false;  // not a lead byte, or cut short
    uint32_t cp = n == 0 ? b : b & (0x3F >> n);
    for (size_t k = 1; k <= n; ++k) {
      auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    if ((n == 2 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
      return false;
    i += n + 1;
  }
  return true;
}

std::string_view trimRight(std::string_view s) {
  while (!s.empty() && (isSpace(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// One physical piece of a logical line: where it is in the text and how long.
struct Piece {
  size_t at;
  size_t len;
};

// Maps an offset into the joined logical line back to the text.
size_t textOffset(const std::vector<Piece>& pieces, size_t logicalOffset) {
  for (const auto& p : pieces) {
    if (logicalOffset < p.len) return p.at + logicalOffset;
    logicalOffset -= p.len;
  }
  return pieces.empty() ? 0 : pieces.back().at + pieces.back().len;
}

}  // namespace

std::vector<PropertyLine> scanPropertyLines(std::string_view text) {
  std::vector<PropertyLine> lines;
  size_t pos = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // UTF-8 byte order mark of Windows editors
  int lineNo = 0;
  while (pos < text.size()) {
    // Gather one logical line (physical lines joined on trailing backslash).
    std::string logical;
    std::vector<Piece> pieces;
    int firstLine = lineNo + 1;
    bool more = true;
    while (more && pos < text.size()) {
      size_t nl = text.find('\n', pos);
      std::string_view phys = text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos);
      pos = nl == std::string_view::npos ? text.size() : nl + 1;
      ++lineNo;
      phys = trimRight(phys);
      std::string_view body = trimLeft(phys);
      if (logical.empty() && (body.empty() || body.front() == '#' || body.front() == '!')) break;
      more = continues(body);
      if (more) body.remove_suffix(1);
      pieces.push_back({static_cast<size_t>(body.data() - text.data()), body.size()});
      logical.append(body);
    }
    if (logical.empty()) continue;
    auto [rawKey, rawValue] = splitKeyValue(logical);
    rawValue = trimRight(rawValue);
    PropertyLine line;
    line.rawKey = std::string(rawKey);
    line.rawValue = std::string(rawValue);
    line.firstLine = firstLine;
    size_t valueAt = static_cast<size_t>(rawValue.data() - logical.data());
    line.begin = textOffset(pieces, 0);
    line.valueBegin = textOffset(pieces, valueAt);
    // Just past the value's last character (an empty value: the end of the logical line).
    line.end = rawValue.empty() ? textOffset(pieces, logical.size())
                                : textOffset(pieces, valueAt + rawValue.size() - 1) + 1;
    if (rawValue.empty()) line.valueBegin = line.end;
    lines.push_back(std::move(line));
  }
  return lines;
}

Result<std::vector<ConfigEntry>> parseProperties(std::string_view text, const std::string& sourceName) {
  std::vector<ConfigEntry> entries;
  for (const auto& line : scanPropertyLines(text)) {
    std::string origin = fmt::format("{}:{}", sourceName, line.firstLine);
    auto key = unescape(line.rawKey, origin);
    if (!key) return key.error();
    auto value = unescape(line.rawValue, origin);
    if (!value) return value.error();
    if (!validUtf8(*key) || !validUtf8(*value))
      return makeError(1, fmt::format("config error at {}: key '{}': not valid UTF-8 (save the file as UTF-8)", origin,
                                      validUtf8(*key) ? *key : std::string("?")));
    ConfigEntry e;
    e.key = std::move(*key);
    e.value.kind = ConfigValue::Kind::Text;
    e.value.text = std::move(*value);
    e.origin = std::move(origin);
    e.valueBegin = line.valueBegin;
    e.valueEnd = line.end;
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace rmq::config
