#include "config/config_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "config/ignored_keys.h"
#include "config/key_suggestion.h"

namespace rmq::config {
namespace {

using Kind = ConfigValue::Kind;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Java's Properties keeps a value's trailing blanks and Integer.parseInt refuses them (the key then
// silently keeps its default); rmqnode takes the number the user meant.
std::string_view trimBlanks(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string expectedInteger(int64_t lo, int64_t hi) {
  return fmt::format("an integer in [{}, {}]", lo, hi);
}

// Converts one value to a field's type; on failure `err` says what was expected.
struct Converter {
  const FieldInfo& info;
  std::string err;
  std::string clamped;  // set when an out-of-range value was clamped (FieldInfo::clamp)

  bool toBool(const ConfigValue& v, bool& out) {
    if (v.kind == Kind::Bool) { out = v.b; return true; }
    if (v.kind == Kind::Text) {
      auto t = lower(trimBlanks(v.text));
      if (t == "true") { out = true; return true; }
      if (t == "false") { out = false; return true; }
    }
    err = "true or false";
    return false;
  }

  bool toInt(const ConfigValue& v, int64_t typeMin, int64_t typeMax, int64_t& out) {
    int64_t lo = std::max(typeMin, info.min.value_or(typeMin));
    int64_t hi = std::min(typeMax, info.max.value_or(typeMax));
    int64_t x = 0;
    bool parsed = false;
    if (v.kind == Kind::Int) {
      x = v.i;
      parsed = true;
    } else if (v.kind == Kind::Text) {
      std::string_view t = trimBlanks(v.text);
      if (!t.empty() && t.front() == '+') t.remove_prefix(1);
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
      parsed = !t.empty() && ec == std::errc() && p == t.data() + t.size();
    }
    if (parsed && info.clamp && (x < lo || x > hi)) {
      clamped = fmt::format("{} is outside [{}, {}]; using {} as Apache RocketMQ does", x, lo, hi, std::clamp(x, lo, hi));
      x = std::clamp(x, lo, hi);
    }
    if (!parsed || x < lo || x > hi) { err = expectedInteger(lo, hi); return false; }
    out = x;
    return true;
  }

  bool toDouble(const ConfigValue& v, double& out) {
    double x = 0;
    bool parsed = false;
    if (v.kind == Kind::Float) { x = v.d; parsed = true; }
    else if (v.kind == Kind::Int) { x = static_cast<double>(v.i); parsed = true; }
    else if (v.kind == Kind::Text) {
      std::string t(trimBlanks(v.text));
      char* end = nullptr;
      errno = 0;
      x = std::strtod(t.c_str(), &end);
      parsed = !t.empty() && errno == 0 && end == t.c_str() + t.size();
    }
    auto lo = info.min ? static_cast<double>(*info.min) : -std::numeric_limits<double>::infinity();
    auto hi = info.max ? static_cast<double>(*info.max) : std::numeric_limits<double>::infinity();
    if (!parsed || !std::isfinite(x) || x < lo || x > hi) {
      err = info.min || info.max ? fmt::format("a number in [{}, {}]", lo, hi) : "a number";
      return false;
    }
    out = x;
    return true;
  }

  bool toString(const ConfigValue& v, std::string& out) {
    if (v.kind != Kind::String && v.kind != Kind::Text) { err = "a string"; return false; }
    if (!info.choices.empty()) {
      bool found = false;
      for (auto c : info.choices) found = found || c == v.text;
      if (!found) { err = fmt::format("one of {}", fmt::join(info.choices, ", ")); return false; }
    }
    out = v.text;
    return true;
  }
};

// Offers each entry to the fields of one section. In validate mode nothing is written.
class ApplyVisitor : public FieldVisitor {
 public:
  ApplyVisitor(const std::vector<ConfigEntry>& entries, const std::vector<std::string>& scopes, bool write)
      : entries_(entries), scopes_(scopes), write_(write), claimed_(entries.size(), false) {}

  void setSection(const std::string& title) { section_ = title; }
  const std::vector<std::string>& errors() const { return errors_; }
  bool claimed(size_t i) const { return claimed_[i]; }
  const std::vector<std::string>& written() const { return written_; }
  const std::vector<std::string>& clamped() const { return clamped_; }

  void field(const FieldInfo& f, bool& value) override {
    apply(f, value, [&](Converter& c, const ConfigValue& v, bool& out) { return c.toBool(v, out); });
  }
  void field(const FieldInfo& f, int32_t& value) override {
    apply(f, value, [&](Converter& c, const ConfigValue& v, int32_t& out) {
      int64_t x = 0;
      if (!c.toInt(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max(), x)) return false;
      out = static_cast<int32_t>(x);
      return true;
    });
  }
  void field(const FieldInfo& f, int64_t& value) override {
    apply(f, value, [&](Converter& c, const ConfigValue& v, int64_t& out) {
      return c.toInt(v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), out);
    });
  }
  void field(const FieldInfo& f, double& value) override {
    apply(f, value, [&](Converter& c, const ConfigValue& v, double& out) { return c.toDouble(v, out); });
  }
  void field(const FieldInfo& f, std::string& value) override {
    apply(f, value, [&](Converter& c, const ConfigValue& v, std::string& out) { return c.toString(v, out); });
  }

 private:
  bool matches(const FieldInfo& f, const std::string& key) const {
    if (key == f.name) return true;
    for (auto a : f.aliases) if (key == a) return true;
    return false;
  }

  template <class T, class Fn>
  void apply(const FieldInfo& f, T& target, Fn convert) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      const auto& e = entries_[i];
      if (!scopes_[i].empty() && scopes_[i] != section_) continue;
      if (!matches(f, e.key)) continue;
      claimed_[i] = true;
      Converter c{f, {}};
      T parsed{};
      if (!convert(c, e.value, parsed)) {
        errors_.push_back(fmt::format("config error{}{}: key '{}': expected {}, got {}",
                                      e.origin.empty() ? "" : " at ", e.origin, f.name, c.err,
                                      e.value.describe()));
        continue;
      }
      if (write_ && !c.clamped.empty())
        clamped_.push_back(fmt::format("config{}{}: key '{}': {}", e.origin.empty() ? "" : " at ", e.origin, f.name,
                                       c.clamped));
      if (write_) {
        target = std::move(parsed);
        written_.emplace_back(f.name);
      }
    }
  }

  const std::vector<ConfigEntry>& entries_;
  const std::vector<std::string>& scopes_;
  bool write_;
  std::string section_;
  std::vector<bool> claimed_;
  std::vector<std::string> errors_;
  std::vector<std::string> written_;
  std::vector<std::string> clamped_;
};

bool hasSection(const std::vector<ConfigSection>& sections, std::string_view title) {
  for (auto& s : sections) if (s.title == title) return true;
  return false;
}

// Effective scope of each entry: the TOML table, or a "title." key prefix naming a section.
std::vector<std::string> resolveScopes(std::vector<ConfigEntry>& entries, const std::vector<ConfigSection>& sections) {
  std::vector<std::string> titles;
  for (auto& s : sections) titles.push_back(s.title);
  scopeByKeyPrefix(entries, titles);
  std::vector<std::string> scopes;
  for (auto& e : entries) scopes.push_back(e.scope);
  return scopes;
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (auto& l : lines) { if (!out.empty()) out += '\n'; out += l; }
  return out;
}

// Collects every key name and alias of the visited sections.
class KeyCollector : public FieldVisitor {
 public:
  explicit KeyCollector(std::vector<std::string>& out) : out_(out) {}
  void field(const FieldInfo& f, bool&) override { add(f); }
  void field(const FieldInfo& f, int32_t&) override { add(f); }
  void field(const FieldInfo& f, int64_t&) override { add(f); }
  void field(const FieldInfo& f, double&) override { add(f); }
  void field(const FieldInfo& f, std::string&) override { add(f); }

 private:
  void add(const FieldInfo& f) {
    out_.emplace_back(f.name);
    for (auto a : f.aliases) out_.emplace_back(a);
  }
  std::vector<std::string>& out_;
};

// The value as text, for comparing with IgnoredKey::refuseValue.
std::string comparableText(const ConfigValue& v) {
  if (v.kind == Kind::Bool) return v.b ? "true" : "false";
  if (v.kind == Kind::Text || v.kind == Kind::String) return lower(trimBlanks(v.text));
  return v.describe();
}

// The section declaring `key` (a name or alias), for a key written under the wrong table.
std::optional<std::string> sectionOwning(const std::vector<ConfigSection>& sections, const std::string& key) {
  for (auto& s : sections) {
    auto keys = fieldKeys({s});
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) return s.title;
  }
  return std::nullopt;
}

// Sorts out the entries no section claimed: ignored RocketMQ keys go to `report`, everything
// else (unknown tables and keys, refused values) to `errors`.
void classifyUnclaimed(const std::vector<ConfigEntry>& entries, const std::vector<std::string>& scopes,
                       const ApplyVisitor& claims, const std::vector<ConfigSection>& sections,
                       ApplyReport& report, std::vector<std::string>& errors) {
  std::vector<std::string> candidates;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (claims.claimed(i)) continue;
    const auto& e = entries[i];
    std::string where = e.origin.empty() ? "" : " at " + e.origin;
    if (!scopes[i].empty() && !hasSection(sections, scopes[i])) {
      errors.push_back(fmt::format("config error{}: unknown table [{}] (key '{}')", where, scopes[i], e.key));
      continue;
    }
    if (const IgnoredKey* known = findIgnoredKey(e.key)) {
      if (!known->refuseValue.empty() && comparableText(e.value) == known->refuseValue) {
        errors.push_back(fmt::format("config error{}: {} (key '{}')", where, known->refusal, e.key));
      } else {
        report.ignored.push_back({e.key, e.origin, fmt::format("{} key; {}", known->origin, known->reason)});
      }
      continue;
    }
    if (auto home = sectionOwning(sections, e.key); home && !scopes[i].empty()) {
      errors.push_back(fmt::format("config error{}: key '{}' is not a [{}] key; it belongs in [{}] (or at the top level)",
                                   where, e.key, scopes[i], *home));
      continue;
    }
    if (candidates.empty()) {
      candidates = fieldKeys(sections);
      for (const auto& k : ignoredKeys()) candidates.emplace_back(k.key);
    }
    auto suggestion = closestKey(e.key, candidates);
    errors.push_back(fmt::format("config error{}: unknown key '{}'{}", where, e.key,
                                 suggestion ? fmt::format(" (did you mean '{}'?)", *suggestion) : ""));
  }
}

}  // namespace

std::string ConfigValue::describe() const {
  switch (kind) {
    case Kind::Bool: return b ? "true" : "false";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: return fmt::format("{}", d);
    default: return fmt::format("\"{}\"", text);
  }
}

void scopeByKeyPrefix(std::vector<ConfigEntry>& entries, const std::vector<std::string>& titles) {
  for (auto& e : entries) {
    auto dot = e.key.find('.');
    if (!e.scope.empty() || dot == std::string::npos) continue;
    if (std::find(titles.begin(), titles.end(), std::string_view(e.key).substr(0, dot)) == titles.end()) continue;
    e.scope = e.key.substr(0, dot);
    e.key = e.key.substr(dot + 1);
  }
}

std::vector<std::string> fieldKeys(const std::vector<ConfigSection>& sections) {
  std::vector<std::string> keys;
  KeyCollector collector(keys);
  for (auto& s : sections) s.visit(collector);
  return keys;
}

Result<ApplyReport> applyConfig(const std::vector<ConfigEntry>& input, const std::vector<ConfigSection>& sections) {
  std::vector<ConfigEntry> entries = input;
  auto scopes = resolveScopes(entries, sections);
  ApplyVisitor check(entries, scopes, false);
  for (auto& s : sections) { check.setSection(s.title); s.visit(check); }
  std::vector<std::string> errors = check.errors();
  ApplyReport report;
  classifyUnclaimed(entries, scopes, check, sections, report, errors);
  if (!errors.empty()) return makeError(1, join(errors));
  ApplyVisitor write(entries, scopes, true);
  for (auto& s : sections) { write.setSection(s.title); s.visit(write); }
  report.written = write.written();
  report.clamped = write.clamped();
  return report;
}

Result<std::vector<std::string>> applyEntries(const std::vector<ConfigEntry>& entries,
                                              const std::vector<ConfigSection>& sections) {
  auto report = applyConfig(entries, sections);
  if (!report) return report.error();
  return std::move(report->written);
}

std::optional<ConfigFormat> configFormatOf(std::string_view path) {
  auto endsWith = [&](std::string_view suffix) {
    return path.size() >= suffix.size() && lower(path.substr(path.size() - suffix.size())) == suffix;
  };
  if (endsWith(".toml")) return ConfigFormat::Toml;
  if (endsWith(".properties") || endsWith(".conf") || endsWith(".cfg")) return ConfigFormat::Properties;
  return std::nullopt;
}

Result<std::vector<ConfigEntry>> parseConfigText(std::string_view text, ConfigFormat format,
                                                 const std::string& sourceName) {
  return format == ConfigFormat::Toml ? parseToml(text, sourceName) : parseProperties(text, sourceName);
}

Result<ApplyReport> loadConfigFile(const std::string& path, const std::vector<ConfigSection>& sections) {
  auto format = configFormatOf(path);
  if (!format) {
    return makeError(1, fmt::format("config file {}: unknown type (expected .toml, or .properties/.conf "
                                    "for Java properties)", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError(1, fmt::format("cannot read config file {}: {}", path, std::strerror(errno)));
  std::stringstream ss;
  ss << in.rdbuf();
  auto entries = parseConfigText(ss.str(), *format, path);
  if (!entries) return entries.error();
  return applyConfig(*entries, sections);
}

Result<std::vector<std::string>> applyPropertiesText(std::string_view text,
                                                     const std::vector<ConfigSection>& sections) {
  auto entries = parseProperties(text, "request");
  if (!entries) return entries.error();
  return applyEntries(*entries, sections);
}

}  // namespace rmq::config
