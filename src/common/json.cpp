#include "common/json.h"

#include <rapidjson/error/en.h>

#include <charconv>
#include <cmath>
#include <vector>

#include "common/response_code.h"

namespace rmq::json {
namespace {

constexpr unsigned kParseFlags = rapidjson::kParseTrailingCommasFlag;

Result<void> parseNested(std::string_view text, size_t outerDepth, rapidjson::Document& doc);

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Rewrites fastjson's non-standard forms into standard JSON that rapidjson parses; quoted
// strings and everything else are copied through unchanged.
class Normalizer {
 public:
  // `outerDepth`: nesting levels around this text (an object-valued key is parsed on its own).
  Normalizer(std::string_view in, size_t outerDepth) : in_(in), outerDepth_(outerDepth) { out_.reserve(in.size() + 16); }

  Result<std::string> run() {
    while (pos_ < in_.size()) {
      char c = in_[pos_];
      if (isSpace(c)) { out_ += c; ++pos_; continue; }
      if (expectKey_ && c != '}') {
        if (auto r = key(); !r) return r.error();
        expectKey_ = false;
        continue;
      }
      switch (c) {
        case '"': copyString(); break;
        case '\'': convertSingleQuoted(); break;
        case '{': case '[':
          if (outerDepth_ + stack_.size() >= kMaxNesting) return tooDeep();
          stack_.push_back(c);
          expectKey_ = c == '{';
          out_ += c;
          ++pos_;
          break;
        case '}': case ']':
          if (!stack_.empty()) stack_.pop_back();
          expectKey_ = false;
          out_ += c;
          ++pos_;
          break;
        case ',': expectKey_ = !stack_.empty() && stack_.back() == '{'; out_ += c; ++pos_; break;
        default: out_ += c; ++pos_; break;
      }
    }
    return std::move(out_);
  }

 private:
  // Object key at pos_: quoted, single-quoted, object/array-valued or bare (numbers, names).
  Result<void> key() {
    char c = in_[pos_];
    if (c == '"') { copyString(); return {}; }
    if (c == '\'') { convertSingleQuoted(); return {}; }
    if (c == '{' || c == '[') {
      size_t end = matchingEnd(pos_);
      if (end == std::string_view::npos) return makeError(ResponseCode::SYSTEM_ERROR, "unterminated object key");
      rapidjson::Document keyDoc;
      if (auto r = parseNested(in_.substr(pos_, end - pos_), outerDepth_ + stack_.size(), keyDoc); !r)
        return r.error();
      appendQuoted(out_, toString(keyDoc));
      pos_ = end;
      return {};
    }
    size_t start = pos_;
    while (pos_ < in_.size() && in_[pos_] != ':' && !isSpace(in_[pos_])) ++pos_;
    appendQuoted(out_, in_.substr(start, pos_ - start));
    return {};
  }

  // Index just past the bracket matching in_[from], skipping quoted strings.
  size_t matchingEnd(size_t from) const {
    int depth = 0;
    for (size_t i = from; i < in_.size(); ++i) {
      char c = in_[i];
      if (c == '"' || c == '\'') {
        for (++i; i < in_.size() && in_[i] != c; ++i)
          if (in_[i] == '\\') ++i;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return std::string_view::npos;
  }

  void copyString() {
    size_t start = pos_++;
    while (pos_ < in_.size() && in_[pos_] != '"') pos_ += in_[pos_] == '\\' ? 2 : 1;
    pos_ = std::min(pos_ + 1, in_.size());
    out_.append(in_.substr(start, pos_ - start));
  }

  void convertSingleQuoted() {
    out_ += '"';
    for (++pos_; pos_ < in_.size() && in_[pos_] != '\''; ++pos_) {
      char c = in_[pos_];
      if (c == '\\' && pos_ + 1 < in_.size()) {
        char n = in_[++pos_];
        if (n != '\'') out_ += '\\';
        out_ += n;
      } else if (c == '"') {
        out_ += "\\\"";
      } else {
        out_ += c;
      }
    }
    out_ += '"';
    ++pos_;
  }

  Error tooDeep() const {
    return makeError(ResponseCode::SYSTEM_ERROR, "invalid JSON near offset " + std::to_string(pos_) +
                                                     ": nested deeper than " + std::to_string(kMaxNesting) + " levels");
  }

  std::string_view in_;
  size_t outerDepth_;
  std::string out_;
  size_t pos_ = 0;
  std::vector<char> stack_;
  bool expectKey_ = false;
};

// rapidjson's normal-precision reader lets some overflowing numbers through as infinity
// (2160060e306: the exponent alone is in range); a document holding one could not be written
// back, so it is refused like any other number too big for a double.
bool allFinite(const rapidjson::Value& v) {
  if (v.IsDouble()) return std::isfinite(v.GetDouble());
  if (v.IsObject()) {
    for (auto& m : v.GetObject())
      if (!allFinite(m.value)) return false;
  } else if (v.IsArray()) {
    for (auto& e : v.GetArray())
      if (!allFinite(e)) return false;
  }
  return true;
}

Result<void> parseNested(std::string_view text, size_t outerDepth, rapidjson::Document& doc) {
  auto normalized = Normalizer(text, outerDepth).run();
  if (!normalized) return normalized.error();
  const std::string& s = normalized.value();
  doc.Parse<kParseFlags>(s.data(), s.size());
  if (doc.HasParseError()) {
    return makeError(ResponseCode::SYSTEM_ERROR,
                     std::string("invalid JSON near offset ") + std::to_string(doc.GetErrorOffset()) + ": " +
                         rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!allFinite(doc)) return makeError(ResponseCode::SYSTEM_ERROR, "invalid JSON: a number is too big for a double");
  return {};
}

}  // namespace

Result<void> parse(std::string_view text, rapidjson::Document& doc) { return parseNested(text, 0, doc); }

std::string toString(const rapidjson::Value& v) {
  Buffer buf;
  Writer w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

namespace {
struct EscapeTable {
  bool needs[256] = {};
  constexpr EscapeTable() {
    for (int c = 0; c < 0x20; ++c) needs[c] = true;
    needs[int('"')] = needs[int('\\')] = needs[0x7F] = true;
  }
};
constexpr EscapeTable kEscape;
}  // namespace

void appendQuoted(std::string& out, std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  out.reserve(out.size() + s.size() + 2);
  out += '"';
  size_t run = 0;  // start of the pending run of bytes needing no escape
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (!kEscape.needs[c]) continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default: {
        char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
        out.append(esc, 6);
      }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
}

std::string messageQueueKeyText(const MessageQueueKey& mq) {
  std::string out;
  out.reserve(48 + mq.topic.size() + mq.brokerName.size());
  out += "{\"brokerName\":";
  appendQuoted(out, mq.brokerName);
  out += ",\"queueId\":";
  out += std::to_string(mq.queueId);
  out += ",\"topic\":";
  appendQuoted(out, mq.topic);
  out += '}';
  return out;
}

std::optional<MessageQueueKey> parseMessageQueueKey(std::string_view keyText) {
  rapidjson::Document doc;
  if (!parse(keyText, doc) || !doc.IsObject()) return std::nullopt;
  auto topic = getString(doc, "topic");
  auto broker = getString(doc, "brokerName");
  auto queueId = getInt64(doc, "queueId");
  if (!topic || !broker || !queueId) return std::nullopt;
  return MessageQueueKey{std::string(*topic), std::string(*broker), static_cast<int32_t>(*queueId)};
}

void writeIntKey(Writer& w, int64_t key) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, key);
  writeRawKey(w, std::string_view(buf, end - buf));
}

void writeRawKey(Writer& w, std::string_view jsonText) {
  // rapidjson accepts a raw value in key position when typed as a string.
  w.RawValue(jsonText.data(), jsonText.size(), rapidjson::kStringType);
}

void writeMessageQueueKey(Writer& w, const MessageQueueKey& mq) { writeRawKey(w, messageQueueKeyText(mq)); }

std::optional<std::string_view> getString(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return std::nullopt;
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsString()) return std::nullopt;
  return std::string_view(it->value.GetString(), it->value.GetStringLength());
}

std::optional<int64_t> int64OfDouble(double v) {
  if (!(v >= -0x1p63 && v < 0x1p63)) return std::nullopt;  // false for NaN too
  return static_cast<int64_t>(v);
}

std::optional<int64_t> getInt64(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return std::nullopt;
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd()) return std::nullopt;
  const auto& v = it->value;
  if (v.IsInt64()) return v.GetInt64();
  if (v.IsUint64()) return static_cast<int64_t>(v.GetUint64());
  if (v.IsDouble()) return int64OfDouble(v.GetDouble());
  if (v.IsString()) {
    const char* b = v.GetString();
    const char* e = b + v.GetStringLength();
    int64_t out = 0;
    auto [p, ec] = std::from_chars(b, e, out);
    if (ec == std::errc() && p == e) return out;
  }
  return std::nullopt;
}

std::optional<bool> getBool(const rapidjson::Value& obj, const char* key) {
  if (!obj.IsObject()) return std::nullopt;
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd()) return std::nullopt;
  if (it->value.IsBool()) return it->value.GetBool();
  if (it->value.IsString()) {
    std::string_view s(it->value.GetString(), it->value.GetStringLength());
    return s == "true" || s == "TRUE" || s == "True";
  }
  return std::nullopt;
}

}  // namespace rmq::json
