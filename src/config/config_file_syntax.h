#pragma once
// What differs between TOML and properties files when config_file_update.cpp edits one: how a
// value is written, and where and how a missing key is added.
#include <string>
#include <string_view>

#include "common/result.h"
#include "config/config_file_update.h"

namespace rmq::config {

class ConfigFileSyntax {
 public:
  virtual ~ConfigFileSyntax() = default;
  // The value as a literal of this syntax (TOML: quoted string; properties: escaped text).
  virtual std::string literal(const ConfigValue& value) const = 0;
  // `text` with a new entry setting `update`; `scoped`: only update.section may take it.
  virtual Result<std::string> withAddedKey(std::string_view text, const KeyUpdate& update, bool scoped) const = 0;
};

const ConfigFileSyntax& tomlFileSyntax();
const ConfigFileSyntax& propertiesFileSyntax();

// "\r\n" when the text's lines end so, else "\n".
std::string_view lineBreakOf(std::string_view text);
// `text` ending with a line break (one added when it has content and none at its end).
std::string withFinalLineBreak(std::string_view text);

}  // namespace rmq::config
