#pragma once
// Small JSON helpers for the broker's config files and admin bodies, in fastjson's shapes
// (PROTOCOL.md §3.1): a writer with fastjson's pretty format (one TAB per level, newline after
// '{' and ',', no space after ':') or compact output, raw (unquoted) integer / object keys where
// Java writes them, and a tolerant parse that accepts unquoted numeric keys.
#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq::broker::json {

class Writer {
 public:
  explicit Writer(bool pretty = false) : pretty_(pretty) {}
  Writer& beginObject();
  Writer& endObject();
  Writer& beginArray();
  Writer& endArray();
  Writer& key(std::string_view k);          // quoted key
  Writer& rawKey(std::string_view k);       // unquoted key (ints, MessageQueue objects)
  Writer& intKey(int64_t k) { return rawKey(std::to_string(k)); }
  Writer& value(std::string_view s);
  Writer& value(const char* s) { return value(std::string_view(s)); }
  Writer& value(const std::string& s) { return value(std::string_view(s)); }
  Writer& value(int64_t v);
  Writer& value(int32_t v) { return value(static_cast<int64_t>(v)); }
  Writer& value(bool v);
  Writer& value(double v);
  Writer& rawValue(std::string_view json);  // an already-encoded value
  // Capacity for the whole text up front: a 20 MB topics.json grown by doubling costs copies and
  // page faults of every intermediate buffer.
  void reserve(size_t bytes) { out_.reserve(bytes); }
  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void beforeValue();
  void newline();
  std::string out_;
  bool pretty_;
  int depth_ = 0;
  bool first_ = true;       // no element written yet at this level
  bool afterKey_ = false;
};

// Parses fastjson output (common/json.h tolerant parser) into a Document.
Result<rapidjson::Document> parse(std::string_view text);

// Typed field reads with defaults (missing or wrong type -> default).
std::string getString(const rapidjson::Value& obj, const char* name, std::string_view dflt = {});
int64_t getInt(const rapidjson::Value& obj, const char* name, int64_t dflt = 0);
bool getBool(const rapidjson::Value& obj, const char* name, bool dflt = false);

}  // namespace rmq::broker::json
