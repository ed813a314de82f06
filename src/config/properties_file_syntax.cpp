// Editing a Java properties config file (config_file_syntax.h): values escaped so that
// parseProperties (and java.util.Properties) reads them back unchanged; a missing key appended
// with the separator style of the file's last entry.
#include <fmt/format.h>

#include "config/config_file_syntax.h"
#include "config/properties_lines.h"

namespace rmq::config {
namespace {

using Kind = ConfigValue::Kind;

std::string escapeValue(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\f': out += "\\f"; break;
      case ' ':
        // A leading blank would be taken for the separator, a trailing one trimmed.
        if (i == 0) out += "\\ ";
        else if (i + 1 == s.size()) out += "\\u0020";
        else out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

// What separates key and value on the file's last entry ("=", " = ", ": ", " "), "=" when unclear.
std::string separatorOf(std::string_view text) {
  auto lines = scanPropertyLines(text);
  if (lines.empty()) return "=";
  const auto& last = lines.back();
  size_t keyEnd = last.begin + last.rawKey.size();
  if (last.valueBegin >= last.end || last.valueBegin <= keyEnd) return "=";
  auto sep = text.substr(keyEnd, last.valueBegin - keyEnd);
  if (sep.find_first_of("\\\r\n") != std::string_view::npos) return "=";
  return std::string(sep);
}

class PropertiesSyntax : public ConfigFileSyntax {
 public:
  std::string literal(const ConfigValue& v) const override {
    switch (v.kind) {
      case Kind::Bool: return v.b ? "true" : "false";
      case Kind::Int: return std::to_string(v.i);
      case Kind::Float: return fmt::format("{}", v.d);
      default: return escapeValue(v.text);
    }
  }

  Result<std::string> withAddedKey(std::string_view text, const KeyUpdate& u, bool scoped) const override {
    std::string key = scoped ? u.section + "." + u.key : u.key;
    return withFinalLineBreak(text) + key + separatorOf(text) + literal(u.value) + std::string(lineBreakOf(text));
  }
};

}  // namespace

const ConfigFileSyntax& propertiesFileSyntax() {
  static const PropertiesSyntax syntax;
  return syntax;
}

}  // namespace rmq::config
