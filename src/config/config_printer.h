#pragma once
// Printers over the same field lists the loaders use: the effective config as commented TOML
// (--print-config; parses back with parseToml) and as Java properties text (GET_BROKER_CONFIG,
// GET_NAMESRV_CONFIG bodies).
#include <string>
#include <vector>

#include "config/config_loader.h"

namespace rmq::config {

// One `[title]` table per section; each key preceded by its description (and bounds or
// choices) as `#` comments.
std::string renderToml(const std::vector<ConfigSection>& sections);
// `key=value\n` for every field of every section, in declaration order (MixAll.properties2String).
std::string renderProperties(const std::vector<ConfigSection>& sections);
// The same, only the keys Java marks @ImportantField (mqbroker -m).
std::string renderImportantProperties(const std::vector<ConfigSection>& sections);
// `#` comment lines for --print-config: which keys `source` set and which it named but rmqnode
// ignores, each with its origin and reason.
std::string renderApplyReport(const ApplyReport& report, const std::string& source);
// TOML literal for a string value (quoted, escaped).
std::string tomlQuote(std::string_view s);
// TOML literal for a double (always a float: 3 -> "3.0").
std::string tomlDouble(double d);

}  // namespace rmq::config
