// Editing a TOML config file (config_file_syntax.h): literals as --print-config writes them, a
// missing key added into its section's `[title]` table, else at the top level, else as a new table.
#include <fmt/format.h>

#include <algorithm>
#include <toml++/toml.h>

#include "config/config_file_syntax.h"
#include "config/config_printer.h"
#include "config/text_lines.h"

namespace rmq::config {
namespace {

using Kind = ConfigValue::Kind;

// Byte offset of the `[title]` header defining the table, or nullopt when the document has no
// such table or defines it otherwise (dotted keys, an inline table).
std::optional<size_t> headerOf(const toml::table& root, const std::string& title, std::string_view text,
                               const TextLines& lines) {
  const toml::table* table = root[title].as_table();
  if (!table || table->is_inline()) return std::nullopt;
  size_t at = lines.offset(table->source().begin.line, table->source().begin.column);
  if (at >= text.size() || text[at] != '[' || text.substr(at).starts_with("[[")) return std::nullopt;
  return at;
}

bool hasTables(const toml::table& root) {
  return std::any_of(root.begin(), root.end(), [](const auto& kv) { return kv.second.is_table(); });
}

class TomlSyntax : public ConfigFileSyntax {
 public:
  std::string literal(const ConfigValue& v) const override {
    switch (v.kind) {
      case Kind::Bool: return v.b ? "true" : "false";
      case Kind::Int: return std::to_string(v.i);
      case Kind::Float: return tomlDouble(v.d);
      default: return tomlQuote(v.text);
    }
  }

  Result<std::string> withAddedKey(std::string_view text, const KeyUpdate& u, bool scoped) const override {
    toml::table root;
    try {
      root = toml::parse(text);
    } catch (const toml::parse_error& e) {
      return makeError(1, fmt::format("the config file does not parse: {}", e.description()));
    }
    auto entries = parseToml(text, "");
    if (!entries) return entries.error();
    TextLines lines(text);
    std::string line = fmt::format("{} = {}{}", u.key, literal(u.value), lineBreakOf(text));
    // After the last line of the given entries (or of the header at `start`).
    auto insertAfter = [&](size_t start, auto&& belongs) {
      size_t at = start;
      for (const auto& e : *entries)
        if (belongs(e)) at = std::max(at, lines.nextLineStart(e.valueEnd));
      std::string out = withFinalLineBreak(text.substr(0, at));
      return out + line + std::string(text.substr(at));
    };
    if (auto header = headerOf(root, u.section, text, lines))
      return insertAfter(lines.nextLineStart(*header), [&](const ConfigEntry& e) { return e.scope == u.section; });
    bool topLevelKeys = std::any_of(entries->begin(), entries->end(), [](const auto& e) { return e.scope.empty(); });
    if (!scoped && topLevelKeys) return insertAfter(0, [](const ConfigEntry& e) { return e.scope.empty(); });
    if (!scoped && !hasTables(root)) return withFinalLineBreak(text) + line;
    std::string out = withFinalLineBreak(text);
    if (!out.empty()) out += lineBreakOf(text);
    return out + fmt::format("[{}]{}", u.section, lineBreakOf(text)) + line;
  }
};

}  // namespace

const ConfigFileSyntax& tomlFileSyntax() {
  static const TomlSyntax syntax;
  return syntax;
}

std::string_view lineBreakOf(std::string_view text) {
  return text.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";
}

std::string withFinalLineBreak(std::string_view text) {
  std::string out(text);
  if (!out.empty() && out.back() != '\n') out += lineBreakOf(text);
  return out;
}

}  // namespace rmq::config
