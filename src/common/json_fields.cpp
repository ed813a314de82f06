#include "common/json_fields.h"

#include "common/json.h"

namespace rmq::json {

std::string stringOr(const rapidjson::Value& obj, const char* key, std::string_view dflt) {
  return std::string(getString(obj, key).value_or(dflt));
}

int64_t intOr(const rapidjson::Value& obj, const char* key, int64_t dflt) {
  if (!obj.IsObject()) return dflt;
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd()) return dflt;
  if (it->value.IsInt64()) return it->value.GetInt64();
  if (it->value.IsNumber()) return int64OfDouble(it->value.GetDouble()).value_or(dflt);
  if (it->value.IsString()) {
    try {
      return std::stoll(it->value.GetString());
    } catch (...) {
      return dflt;
    }
  }
  return dflt;
}

bool boolOr(const rapidjson::Value& obj, const char* key, bool dflt) {
  if (!obj.IsObject()) return dflt;
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd()) return dflt;
  if (it->value.IsBool()) return it->value.GetBool();
  if (it->value.IsString()) return std::string_view(it->value.GetString()) == "true";
  return dflt;
}

}  // namespace rmq::json
