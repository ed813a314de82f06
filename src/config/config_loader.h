#pragma once
// Loading config structs (anything with `void visit(FieldVisitor&)`) from TOML or Java
// .properties text, and applying `key=value` updates at run time (UPDATE_BROKER_CONFIG,
// UPDATE_NAMESRV_CONFIG).
//
// Several structs ("sections") are filled from one source: a key is offered to every section
// and is unknown only when none claims it. A TOML table (`[namesrv]`, `[broker]`, `[store]`)
// or a properties prefix (`namesrv.listenPort=9876`) whose name is a section title scopes its
// keys to that section, so one file can configure a combined `--role=namesrv,master` process.
//
// Updates are all-or-nothing: every entry is validated first, and nothing is written when any
// entry is bad. The error message names each bad key and what was expected. RocketMQ keys that
// rmqnode does not use (config/ignored_keys.h) are accepted and reported, not written.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "config/field_visitor.h"

namespace rmq::config {

// One config struct taking part in a load: its title (TOML table name) and its visit().
struct ConfigSection {
  std::string title;  // "namesrv", "broker", "store", "process"
  std::function<void(FieldVisitor&)> visit;
};

template <class T>
ConfigSection section(std::string title, T& cfg) {
  return ConfigSection{std::move(title), [&cfg](FieldVisitor& v) { cfg.visit(v); }};
}

// A value as it came from the source. Properties values are untyped text (parsed by the
// field's type); TOML values keep their TOML type, which must match the field's type.
struct ConfigValue {
  enum class Kind { Text, Bool, Int, Float, String } kind = Kind::Text;
  std::string text;  // Text and String
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string describe() const;  // for error messages: `"abc"`, `12`, `true`
};

struct ConfigEntry {
  std::string key;
  ConfigValue value;
  std::string scope;   // section title it is restricted to, or empty (= any section)
  std::string origin;  // "file.toml:12" for messages; may be empty
  size_t valueBegin = 0;  // where the value is in the parsed text (bytes, end exclusive), for
  size_t valueEnd = 0;    // editing it in place (config_file_update.h)
};

// Parsers: text -> entries (syntax errors only; keys are checked by applyEntries).
Result<std::vector<ConfigEntry>> parseToml(std::string_view text, const std::string& sourceName);
Result<std::vector<ConfigEntry>> parseProperties(std::string_view text, const std::string& sourceName);

// A RocketMQ key that no section implements, accepted and not used (config/ignored_keys.h).
struct IgnoredEntry {
  std::string key;
  std::string origin;  // "broker.conf:58", or empty
  std::string reason;  // from the ignored-keys table, prefixed with where Java defines the key
};

// What a load did: the keys taken (in entry order) and the keys accepted but ignored.
struct ApplyReport {
  std::vector<std::string> written;
  std::vector<IgnoredEntry> ignored;
  std::vector<std::string> clamped;  // warnings: values clamped into their range (FieldInfo::clamp)
};

// Validates every entry against the sections, then (only if all are valid) writes them. An entry
// no section claims is accepted without effect when config/ignored_keys.h lists it (a refused
// value, as enableDLegerCommitLog=true, is an error); otherwise it is an unknown-key error with a
// "did you mean ...?" suggestion.
Result<ApplyReport> applyConfig(const std::vector<ConfigEntry>& entries, const std::vector<ConfigSection>& sections);
// applyConfig, returning the keys that were written.
Result<std::vector<std::string>> applyEntries(const std::vector<ConfigEntry>& entries,
                                              const std::vector<ConfigSection>& sections);

// Moves a "title." key prefix naming one of `titles` into the entry's scope (`broker.listenPort=`
// in properties text); applyConfig does this itself.
void scopeByKeyPrefix(std::vector<ConfigEntry>& entries, const std::vector<std::string>& titles);

// Every key the sections implement (names and alias spellings), in declaration order.
std::vector<std::string> fieldKeys(const std::vector<ConfigSection>& sections);

// A config file's syntax, by its name: TOML for *.toml; Java properties for *.properties, *.conf,
// *.cfg; nullopt for anything else.
enum class ConfigFormat { Toml, Properties };
std::optional<ConfigFormat> configFormatOf(std::string_view path);
// Text -> entries by `format` (parseToml or parseProperties).
Result<std::vector<ConfigEntry>> parseConfigText(std::string_view text, ConfigFormat format,
                                                 const std::string& sourceName);

// Reads `path` (TOML for *.toml; Java properties for *.properties, *.conf, *.cfg) and applies it.
Result<ApplyReport> loadConfigFile(const std::string& path, const std::vector<ConfigSection>& sections);

// Runtime update from properties text (UPDATE_*_CONFIG bodies); same all-or-nothing rule.
Result<std::vector<std::string>> applyPropertiesText(std::string_view text,
                                                     const std::vector<ConfigSection>& sections);

}  // namespace rmq::config
