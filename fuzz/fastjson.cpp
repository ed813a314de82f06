// The tolerant JSON reader (common/json.h: fastjson's unquoted and object-valued map keys,
// single quotes, trailing commas) under every JSON body and metadata file. A parsed document
// must print to JSON that parses back to the same text.
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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rapidjson::Document doc;
  if (!json::parse(fuzz::input(data, size), doc)) return 0;
  walk(doc, 0);
  std::string text = json::toString(doc);
  rapidjson::Document again;
  RMQ_FUZZ_CHECK(json::parse(text, again).ok());
  RMQ_FUZZ_CHECK(json::toString(again) == text);
  return 0;
}
