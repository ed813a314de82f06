#pragma once
// Writing run-time updates (UPDATE_BROKER_CONFIG, UPDATE_NAMESRV_CONFIG) back into the config
// file a node was started with, the way a person edits it, so a restart keeps them (Apache
// RocketMQ's Configuration.persist() rewrites the whole -c file as key=value lines instead):
//
// - a key the file sets gets its new value in place: the rest of the line (key spelling,
//   separator, a TOML trailing comment) and every other line stay byte for byte;
// - a key the file lacks is added: TOML into the table of the section that owns it when the file
//   has one (`[broker]`), else at the top level after the last top-level key (a new `[section]`
//   table at the end when the file has tables but no top-level keys); properties at the end,
//   with the file's separator style;
// - a key another section of the same file also takes (a top-level `listenPort` in a
//   namesrv,master file) is never edited for both: the update goes into its own section's table
//   (TOML) or as a `section.key=` line (properties), which wins over the shared line;
// - an unchanged value leaves its line alone.
// The result is parsed again and must give every updated key its new value and every other
// entry its old one; otherwise it is an error and the caller writes nothing.
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "config/config_loader.h"

namespace rmq::config {

// One key an update set, with its value after the update.
struct KeyUpdate {
  std::string section;               // title of the section whose field it is
  std::string key;                   // the field's name
  std::vector<std::string> aliases;  // other spellings a file may use for it
  ConfigValue value;                 // Bool, Int, Float or String (the field's type)
};

// The title and key names (aliases included) of one section a config file feeds.
struct SectionKeys {
  std::string title;
  std::vector<std::string> keys;
};
std::vector<SectionKeys> sectionKeysOf(const std::vector<ConfigSection>& sections);

// The values `sections` now hold for the fields named in `keys` (applyEntries' result).
std::vector<KeyUpdate> keyUpdatesOf(const std::vector<ConfigSection>& sections, const std::vector<std::string>& keys);

// `text` (the file's content) with `updates` written in. `fileSections`: every section the file
// feeds (to see which keys two sections share). `sourceName` names the file in errors.
Result<std::string> updateConfigText(std::string_view text, ConfigFormat format, const std::vector<KeyUpdate>& updates,
                                     const std::vector<SectionKeys>& fileSections, const std::string& sourceName);

}  // namespace rmq::config
