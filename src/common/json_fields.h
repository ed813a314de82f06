#pragma once
// Field reads with a default, as the broker's config files and admin bodies take Java-bean fields
// (common/json.h's getters say "absent" instead): missing, mistyped or unusable -> `dflt`.
#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace rmq::json {

std::string stringOr(const rapidjson::Value& obj, const char* key, std::string_view dflt = {});
// An integer, a number within int64 (fraction cut toward zero) or a string std::stoll reads.
int64_t intOr(const rapidjson::Value& obj, const char* key, int64_t dflt = 0);
// A bool, or a string: true only for "true".
bool boolOr(const rapidjson::Value& obj, const char* key, bool dflt = false);

}  // namespace rmq::json
