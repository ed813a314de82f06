// The tolerant JSON reader (common/json.h: fastjson's unquoted and object-valued map keys,
// single quotes, trailing commas) under every JSON body and metadata file. A parsed document
// must print to JSON that parses back to the same document (doubles within rapidjson's
// normal-precision parsing error: it may be a few ULP off for long mantissas).
#include <algorithm>
#include <cmath>

#include "common/json.h"
#include "fuzz/fuzz_input.h"

using namespace rmq;

static void walk(const rapidjson::Value& v, int depth) {
  if (depth > 64) return;
  if (v.IsObject()) {
    for (auto& m : v.GetObject()) {
      (void)json::parseMessageQueueKey(json::keyView(m.name));
      (void)json::getInt64(v, m.name.GetString());
      (void)json::getBool(v, m.name.GetString());
      walk(m.value, depth + 1);
    }
  } else if (v.IsArray()) {
    for (auto& e : v.GetArray()) walk(e, depth + 1);
  }
}

static bool sameValue(const rapidjson::Value& a, const rapidjson::Value& b) {
  if (a.IsDouble() || b.IsDouble()) {
    if (!a.IsNumber() || !b.IsNumber()) return false;
    double x = a.GetDouble(), y = b.GetDouble();
    return x == y || std::fabs(x - y) <= 1e-14 * std::max(std::fabs(x), std::fabs(y));
  }
  if (a.GetType() != b.GetType()) return false;
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return false;
    for (auto i = a.MemberBegin(), j = b.MemberBegin(); i != a.MemberEnd(); ++i, ++j)
      if (i->name != j->name || !sameValue(i->value, j->value)) return false;
    return true;
  }
  if (a.IsArray()) {
    if (a.Size() != b.Size()) return false;
    for (rapidjson::SizeType k = 0; k < a.Size(); ++k)
      if (!sameValue(a[k], b[k])) return false;
    return true;
  }
  return a == b;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rapidjson::Document doc;
  if (!json::parse(fuzz::input(data, size), doc)) return 0;
  walk(doc, 0);
  std::string text = json::toString(doc);
  rapidjson::Document again;
  RMQ_FUZZ_CHECK(json::parse(text, again).ok());
  RMQ_FUZZ_CHECK(sameValue(doc, again));
  return 0;
}
