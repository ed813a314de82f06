#include "config/config_file_update.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <tuple>

#include "config/config_file_syntax.h"

namespace rmq::config {
namespace {

using Kind = ConfigValue::Kind;

// Reads the fields named in `keys` as typed values.
class ValueCapture : public FieldVisitor {
 public:
  ValueCapture(std::string title, const std::vector<std::string>& keys, std::vector<KeyUpdate>& out)
      : title_(std::move(title)), keys_(keys), out_(out) {}
  void field(const FieldInfo& f, bool& v) override { add(f, [&](ConfigValue& c) { c.kind = Kind::Bool; c.b = v; }); }
  void field(const FieldInfo& f, int32_t& v) override { add(f, [&](ConfigValue& c) { c.kind = Kind::Int; c.i = v; }); }
  void field(const FieldInfo& f, int64_t& v) override { add(f, [&](ConfigValue& c) { c.kind = Kind::Int; c.i = v; }); }
  void field(const FieldInfo& f, double& v) override { add(f, [&](ConfigValue& c) { c.kind = Kind::Float; c.d = v; }); }
  void field(const FieldInfo& f, std::string& v) override {
    add(f, [&](ConfigValue& c) { c.kind = Kind::String; c.text = v; });
  }

 private:
  template <class Fill>
  void add(const FieldInfo& f, Fill fill) {
    if (std::find(keys_.begin(), keys_.end(), f.name) == keys_.end()) return;
    KeyUpdate u{title_, std::string(f.name), {}, {}};
    for (auto a : f.aliases) u.aliases.emplace_back(a);
    fill(u.value);
    out_.push_back(std::move(u));
  }
  std::string title_;
  const std::vector<std::string>& keys_;
  std::vector<KeyUpdate>& out_;
};

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<int64_t> integerOf(const ConfigValue& v) {
  if (v.kind == Kind::Int) return v.i;
  if (v.kind != Kind::Text) return std::nullopt;
  auto t = trimmed(v.text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  int64_t x = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return x;
}

std::optional<double> numberOf(const ConfigValue& v) {
  if (v.kind == Kind::Float) return v.d;
  if (v.kind == Kind::Int) return static_cast<double>(v.i);
  if (v.kind != Kind::Text) return std::nullopt;
  std::string t(trimmed(v.text));
  char* end = nullptr;
  double x = std::strtod(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size()) return std::nullopt;
  return x;
}

// Whether a value read from the file (typed TOML, or properties text) is `intended`, by the
// loader's reading of it.
bool sameValue(const ConfigValue& fromFile, const ConfigValue& intended) {
  switch (intended.kind) {
    case Kind::Bool: {
      if (fromFile.kind == Kind::Bool) return fromFile.b == intended.b;
      if (fromFile.kind != Kind::Text) return false;
      std::string t(trimmed(fromFile.text));
      for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return t == (intended.b ? "true" : "false");
    }
    case Kind::Int: return integerOf(fromFile) == intended.i;
    case Kind::Float: return numberOf(fromFile) == intended.d;
    default: return (fromFile.kind == Kind::String || fromFile.kind == Kind::Text) && fromFile.text == intended.text;
  }
}

bool names(const KeyUpdate& u, std::string_view key) {
  return key == u.key || std::find(u.aliases.begin(), u.aliases.end(), key) != u.aliases.end();
}

// An entry the loader gives to u.section's field (its table or prefix, or unscoped).
bool reaches(const ConfigEntry& e, const KeyUpdate& u) {
  return (e.scope.empty() || e.scope == u.section) && names(u, e.key);
}

// The entry that gives u.section its value now: the last one the loader applies.
const ConfigEntry* effectiveEntry(const std::vector<ConfigEntry>& entries, const KeyUpdate& u) {
  const ConfigEntry* found = nullptr;
  for (const auto& e : entries)
    if (reaches(e, u)) found = &e;
  return found;
}

// Whether another section of the file takes the key too, and is not being set to the same value
// by this update.
bool sharedWithOtherSection(const KeyUpdate& u, const std::vector<KeyUpdate>& updates,
                            const std::vector<SectionKeys>& fileSections) {
  for (const auto& s : fileSections) {
    if (s.title == u.section) continue;
    bool takesIt = std::any_of(s.keys.begin(), s.keys.end(), [&](const std::string& k) { return names(u, k); });
    bool sameUpdate = std::any_of(updates.begin(), updates.end(), [&](const KeyUpdate& o) {
      return o.section == s.title && o.key == u.key && sameValue(o.value, u.value);
    });
    if (takesIt && !sameUpdate) return true;
  }
  return false;
}

std::vector<std::string> titlesOf(const std::vector<SectionKeys>& fileSections) {
  std::vector<std::string> titles;
  for (const auto& s : fileSections) titles.push_back(s.title);
  return titles;
}

Result<std::vector<ConfigEntry>> entriesOf(std::string_view text, ConfigFormat format,
                                           const std::vector<SectionKeys>& fileSections,
                                           const std::string& sourceName) {
  auto entries = parseConfigText(text, format, sourceName);
  if (entries) scopeByKeyPrefix(*entries, titlesOf(fileSections));
  return entries;
}

// (scope, key, value) of the entries no update is about, sorted: must not change.
std::vector<std::tuple<std::string, std::string, std::string>> untouched(const std::vector<ConfigEntry>& entries,
                                                                         const std::vector<KeyUpdate>& updates) {
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (const auto& e : entries) {
    if (std::any_of(updates.begin(), updates.end(), [&](const KeyUpdate& u) { return reaches(e, u); })) continue;
    out.emplace_back(e.scope, e.key, e.value.describe());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The edited text parses, gives each updated key its new value and every other entry its old one.
Result<void> checkEdit(const std::vector<ConfigEntry>& before, std::string_view after, ConfigFormat format,
                       const std::vector<KeyUpdate>& updates, const std::vector<SectionKeys>& fileSections,
                       const std::string& sourceName) {
  auto reread = entriesOf(after, format, fileSections, sourceName);
  if (!reread) return makeError(1, "the edited file would not parse: " + reread.error().message);
  for (const auto& u : updates) {
    const ConfigEntry* e = effectiveEntry(*reread, u);
    if (!e || !sameValue(e->value, u.value))
      return makeError(1, fmt::format("the edited file would not give {} the value {}", u.key, u.value.describe()));
  }
  if (untouched(before, updates) != untouched(*reread, updates))
    return makeError(1, "the edit would change other keys of the file");
  return {};
}

}  // namespace

std::vector<SectionKeys> sectionKeysOf(const std::vector<ConfigSection>& sections) {
  std::vector<SectionKeys> out;
  for (const auto& s : sections) out.push_back({s.title, fieldKeys({s})});
  return out;
}

std::vector<KeyUpdate> keyUpdatesOf(const std::vector<ConfigSection>& sections, const std::vector<std::string>& keys) {
  std::vector<KeyUpdate> out;
  for (const auto& s : sections) {
    ValueCapture capture(s.title, keys, out);
    s.visit(capture);
  }
  return out;
}

Result<std::string> updateConfigText(std::string_view text, ConfigFormat format, const std::vector<KeyUpdate>& updates,
                                     const std::vector<SectionKeys>& fileSections, const std::string& sourceName) {
  const ConfigFileSyntax& syntax = format == ConfigFormat::Toml ? tomlFileSyntax() : propertiesFileSyntax();
  auto before = entriesOf(text, format, fileSections, sourceName);
  if (!before) return before.error();
  std::string out(text);
  for (const auto& u : updates) {
    auto entries = entriesOf(out, format, fileSections, sourceName);
    if (!entries) return makeError(1, "the edited file would not parse: " + entries.error().message);
    bool shared = sharedWithOtherSection(u, updates, fileSections);
    const ConfigEntry* target = effectiveEntry(*entries, u);
    if (target && (!target->scope.empty() || !shared)) {
      if (!sameValue(target->value, u.value))
        out.replace(target->valueBegin, target->valueEnd - target->valueBegin, syntax.literal(u.value));
      continue;
    }
    auto added = syntax.withAddedKey(out, u, shared);
    if (!added) return added.error();
    out = std::move(*added);
  }
  if (auto checked = checkEdit(*before, out, format, updates, fileSections, sourceName); !checked)
    return checked.error();
  return out;
}

}  // namespace rmq::config
