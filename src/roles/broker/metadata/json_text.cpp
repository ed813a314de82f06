#include "roles/broker/metadata/json_text.h"

#include "common/json.h"
#include "common/json_fields.h"

#include <cmath>

#include <fmt/format.h>

namespace rmq::broker::json {

void Writer::newline() {
  if (!pretty_) return;
  out_.push_back('\n');
  out_.append(static_cast<size_t>(depth_), '\t');
}

void Writer::beforeValue() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (!first_) out_.push_back(',');
  if (depth_ > 0) newline();
  first_ = false;
}

Writer& Writer::beginObject() {
  beforeValue();
  out_.push_back('{');
  ++depth_;
  first_ = true;
  return *this;
}

Writer& Writer::endObject() {
  --depth_;
  if (!first_) newline();
  out_.push_back('}');
  first_ = false;
  return *this;
}

Writer& Writer::beginArray() {
  beforeValue();
  out_.push_back('[');
  ++depth_;
  first_ = true;
  return *this;
}

Writer& Writer::endArray() {
  --depth_;
  if (!first_) newline();
  out_.push_back(']');
  first_ = false;
  return *this;
}

Writer& Writer::key(std::string_view k) {
  beforeValue();
  rmq::json::appendQuoted(out_, k);
  out_.push_back(':');
  afterKey_ = true;
  return *this;
}

Writer& Writer::rawKey(std::string_view k) {
  beforeValue();
  out_.append(k);
  out_.push_back(':');
  afterKey_ = true;
  return *this;
}

Writer& Writer::value(std::string_view s) {
  beforeValue();
  rmq::json::appendQuoted(out_, s);
  return *this;
}

Writer& Writer::value(int64_t v) {
  beforeValue();
  out_ += std::to_string(v);
  return *this;
}

Writer& Writer::value(bool v) {
  beforeValue();
  out_ += v ? "true" : "false";
  return *this;
}

Writer& Writer::value(double v) {
  beforeValue();
  if (!std::isfinite(v)) v = 0;
  std::string text = fmt::format("{}", v);
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  out_ += text;
  return *this;
}

Writer& Writer::rawValue(std::string_view j) {
  beforeValue();
  out_.append(j);
  return *this;
}

Result<rapidjson::Document> parse(std::string_view text) {
  rapidjson::Document doc;
  if (auto r = rmq::json::parse(text, doc); !r) return r.error();
  return Result<rapidjson::Document>(std::move(doc));
}

std::string getString(const rapidjson::Value& obj, const char* name, std::string_view dflt) {
  return rmq::json::stringOr(obj, name, dflt);
}

int64_t getInt(const rapidjson::Value& obj, const char* name, int64_t dflt) { return rmq::json::intOr(obj, name, dflt); }

bool getBool(const rapidjson::Value& obj, const char* name, bool dflt) { return rmq::json::boolOr(obj, name, dflt); }

}  // namespace rmq::broker::json
