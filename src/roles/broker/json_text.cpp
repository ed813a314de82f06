#include "roles/broker/json_text.h"

#include <rapidjson/error/en.h>

#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace rmq::broker::json {

void appendQuoted(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

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
  appendQuoted(out_, k);
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
  appendQuoted(out_, s);
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

namespace {

// Quotes numeric object keys ({0:1} -> {"0":1}) outside strings so rapidjson accepts them.
std::string quoteBareNumericKeys(std::string_view in) {
  std::string out;
  out.reserve(in.size() + 16);
  bool inString = false;
  char prevSignificant = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (inString) {
      out.push_back(c);
      if (c == '\\' && i + 1 < in.size()) {
        out.push_back(in[++i]);
      } else if (c == '"') {
        inString = false;
        prevSignificant = '"';
      }
      continue;
    }
    if (c == '"') {
      inString = true;
      out.push_back(c);
      continue;
    }
    bool keyPosition = prevSignificant == '{' || prevSignificant == ',';
    if (keyPosition && (c == '-' || std::isdigit(static_cast<unsigned char>(c)))) {
      size_t j = i + 1;
      while (j < in.size() && std::isdigit(static_cast<unsigned char>(in[j]))) ++j;
      size_t k = j;
      while (k < in.size() && std::isspace(static_cast<unsigned char>(in[k]))) ++k;
      if (k < in.size() && in[k] == ':') {
        out.push_back('"');
        out.append(in.substr(i, j - i));
        out.push_back('"');
        i = j - 1;
        prevSignificant = '"';
        continue;
      }
    }
    out.push_back(c);
    if (!std::isspace(static_cast<unsigned char>(c))) prevSignificant = c;
  }
  return out;
}

}  // namespace

Result<rapidjson::Document> parse(std::string_view text) {
  std::string normalized = quoteBareNumericKeys(text);
  rapidjson::Document doc;
  doc.Parse(normalized.data(), normalized.size());
  if (doc.HasParseError()) {
    return makeError(1, fmt::format("bad JSON at offset {}: {}", doc.GetErrorOffset(),
                                    rapidjson::GetParseError_En(doc.GetParseError())));
  }
  return Result<rapidjson::Document>(std::move(doc));
}

std::string getString(const rapidjson::Value& obj, const char* name, std::string_view dflt) {
  if (!obj.IsObject()) return std::string(dflt);
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString()) return std::string(dflt);
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

int64_t getInt(const rapidjson::Value& obj, const char* name, int64_t dflt) {
  if (!obj.IsObject()) return dflt;
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd()) return dflt;
  if (it->value.IsInt64()) return it->value.GetInt64();
  if (it->value.IsNumber()) return static_cast<int64_t>(it->value.GetDouble());
  if (it->value.IsString()) {
    try {
      return std::stoll(it->value.GetString());
    } catch (...) {
      return dflt;
    }
  }
  return dflt;
}

bool getBool(const rapidjson::Value& obj, const char* name, bool dflt) {
  if (!obj.IsObject()) return dflt;
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd()) return dflt;
  if (it->value.IsBool()) return it->value.GetBool();
  if (it->value.IsString()) return std::string_view(it->value.GetString()) == "true";
  return dflt;
}

}  // namespace rmq::broker::json
