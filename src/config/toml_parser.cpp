// TOML text -> ConfigEntry list (toml++). Top-level keys are unscoped; keys inside a table
// `[title]` are scoped to the section with that title and come after the top-level ones (so
// they win over a top-level key of the same name). Deeper nesting, arrays and dates are
// refused with the key named.
#include <fmt/format.h>

#include <toml++/toml.h>

#include "config/config_loader.h"
#include "config/text_lines.h"

namespace rmq::config {
namespace {

std::string originOf(const toml::node& node, const std::string& sourceName) {
  auto line = node.source().begin.line;
  return line ? fmt::format("{}:{}", sourceName, line) : sourceName;
}

Result<ConfigValue> toValue(const toml::node& node, std::string_view key, const std::string& origin) {
  ConfigValue v;
  if (auto s = node.as_string()) {
    v.kind = ConfigValue::Kind::String;
    v.text = s->get();
  } else if (auto i = node.as_integer()) {
    v.kind = ConfigValue::Kind::Int;
    v.i = i->get();
  } else if (auto f = node.as_floating_point()) {
    v.kind = ConfigValue::Kind::Float;
    v.d = f->get();
  } else if (auto b = node.as_boolean()) {
    v.kind = ConfigValue::Kind::Bool;
    v.b = b->get();
  } else {
    return makeError(1, fmt::format("config error at {}: key '{}': expected a string, integer, float or "
                                    "boolean (arrays, dates and nested tables are not supported)",
                                    origin, key));
  }
  return v;
}

Result<void> addEntry(std::vector<ConfigEntry>& out, std::string_view key, const toml::node& node,
                      std::string scope, const std::string& sourceName, const TextLines& lines) {
  std::string origin = originOf(node, sourceName);
  auto value = toValue(node, key, origin);
  if (!value) return value.error();
  const auto& at = node.source();
  out.push_back(ConfigEntry{std::string(key), std::move(*value), std::move(scope), std::move(origin),
                            lines.offset(at.begin.line, at.begin.column), lines.offset(at.end.line, at.end.column)});
  return {};
}

}  // namespace

Result<std::vector<ConfigEntry>> parseToml(std::string_view text, const std::string& sourceName) {
  toml::table root;
  try {
    root = toml::parse(text, sourceName);
  } catch (const toml::parse_error& e) {
    return makeError(1, fmt::format("config error at {}:{}: {}", sourceName, e.source().begin.line,
                                    e.description()));
  }
  // Top-level keys first, then the tables: a key set in its section's table wins over the same
  // key at the top level whatever the names (toml++ iterates keys in sorted order).
  TextLines lines(text);
  std::vector<ConfigEntry> entries;
  for (auto& [key, node] : root) {
    if (node.is_table()) continue;
    auto r = addEntry(entries, key.str(), node, "", sourceName, lines);
    if (!r) return r.error();
  }
  for (auto& [key, node] : root) {
    auto table = node.as_table();
    if (!table) continue;
    for (auto& [innerKey, innerNode] : *table) {
      auto r = addEntry(entries, innerKey.str(), innerNode, std::string(key.str()), sourceName, lines);
      if (!r) return r.error();
    }
  }
  return entries;
}

}  // namespace rmq::config
