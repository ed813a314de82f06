#include "net/frame_codec.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <charconv>

#include "common/bytes.h"
#include "common/json.h"
#include "common/response_code.h"

namespace rmq::net {
namespace {

Error decodeError(std::string msg) { return makeError(ResponseCode::SYSTEM_ERROR, std::move(msg)); }

// ---- JSON header ---------------------------------------------------------------------------

void appendInt(std::string& out, int64_t v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end - buf);
}

// SAX handler filling a RemotingCommand straight from the reader's events: no DOM, and strings
// go straight into their final std::string. Unknown properties (any depth) are skipped.
class JsonHeaderHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, JsonHeaderHandler> {
 public:
  explicit JsonHeaderHandler(RemotingCommand& cmd) : cmd_(cmd) {}

  // Refusing a level deeper than json::kMaxNesting stops the (recursive) reader there.
  bool StartObject() {
    if (++depth_ > static_cast<int>(json::kMaxNesting)) return tooDeep();
    if (depth_ == 1) return true;
    if (depth_ == 2 && field_ == Field::ExtFields) {
      inExt_ = true;
      cmd_.extFields.reserve(16);
    }
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    if (depth_ == 2) inExt_ = false;
    --depth_;
    field_ = Field::Other;
    return true;
  }
  bool StartArray() {
    if (++depth_ > static_cast<int>(json::kMaxNesting)) return tooDeep();
    return depth_ > 1;
  }
  bool nestedTooDeep() const { return tooDeep_; }
  bool EndArray(rapidjson::SizeType) { --depth_; return true; }

  bool Key(const char* s, rapidjson::SizeType n, bool) {
    std::string_view k(s, n);
    if (depth_ == 1) field_ = fieldOf(k);
    else if (inExt_ && depth_ == 2) extKey_.assign(s, n);
    return true;
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    std::string_view v(s, n);
    if (inExt_ && depth_ == 2) {
      cmd_.extFields.append(std::move(extKey_), std::string(v));  // Java maps have no duplicates
      extKey_.clear();
    } else if (depth_ == 1) {
      if (field_ == Field::Remark) cmd_.remark.emplace(v);
      else if (field_ == Field::Language) cmd_.language = languageFromName(v).value_or(LanguageCode::OTHER);
      else if (isIntField()) return setInt(v);  // tolerate numbers sent as strings
    }
    return true;
  }
  bool Int(int v) { return number(v); }
  bool Uint(unsigned v) { return number(v); }
  bool Int64(int64_t v) { return number(v); }
  bool Uint64(uint64_t v) { return number(static_cast<int64_t>(v)); }
  bool Double(double v) {  // a fraction is cut as Java's int fields do; beyond int64 is a bad header
    auto i = json::int64OfDouble(v);
    return i && number(*i);
  }
  bool Bool(bool v) { return scalarText(v ? "true" : "false"); }
  bool Null() { return true; }  // null remark / null ext value = absent
  bool Default() { return true; }

 private:
  enum class Field { Other, Code, Language, Version, Opaque, Flag, Remark, ExtFields };
  static Field fieldOf(std::string_view k) {
    if (k == "code") return Field::Code;
    if (k == "extFields") return Field::ExtFields;
    if (k == "flag") return Field::Flag;
    if (k == "language") return Field::Language;
    if (k == "opaque") return Field::Opaque;
    if (k == "remark") return Field::Remark;
    if (k == "version") return Field::Version;
    return Field::Other;
  }
  bool isIntField() const {
    return field_ == Field::Code || field_ == Field::Version || field_ == Field::Opaque || field_ == Field::Flag;
  }
  bool number(int64_t v) {
    if (inExt_ && depth_ == 2) {
      std::string text;
      appendInt(text, v);
      return scalarText(text);
    }
    if (depth_ != 1) return true;
    auto i = static_cast<int32_t>(v);
    switch (field_) {
      case Field::Code: cmd_.code = i; break;
      case Field::Version: cmd_.version = i; break;
      case Field::Opaque: cmd_.opaque = i; break;
      case Field::Flag: cmd_.flag = i; break;
      case Field::Language:  // some clients send the ordinal
        cmd_.language = v >= 0 && v <= 12 ? static_cast<LanguageCode>(v) : LanguageCode::OTHER;
        break;
      default: break;
    }
    return true;
  }
  bool setInt(std::string_view s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size() && number(v);
  }
  bool scalarText(std::string_view text) {  // non-string ext value: keep its text
    if (inExt_ && depth_ == 2) {
      cmd_.extFields.append(std::move(extKey_), std::string(text));
      extKey_.clear();
    }
    return true;
  }

  bool tooDeep() {
    tooDeep_ = true;
    return false;
  }

  RemotingCommand& cmd_;
  int depth_ = 0;
  bool tooDeep_ = false;
  Field field_ = Field::Other;
  bool inExt_ = false;
  std::string extKey_;
};

Result<void> decodeJsonHeader(std::string_view header, RemotingCommand& cmd) {
  if (header.empty() || header.front() != '{') return decodeError("JSON header is not an object");
  // One reader and one scratch copy per thread, reused: in-situ parsing decodes strings in the
  // scratch buffer instead of pushing them char by char onto the reader's stack.
  thread_local rapidjson::Reader reader;
  thread_local std::string scratch;
  scratch.assign(header);  // NUL-terminated by std::string
  rapidjson::InsituStringStream in(scratch.data());
  JsonHeaderHandler handler(cmd);
  auto res = reader.Parse<rapidjson::kParseInsituFlag>(in, handler);
  if (!res.IsError() && in.Tell() < header.size() && header.find_first_not_of(" \t\r\n", in.Tell()) != std::string_view::npos)
    return decodeError("bad JSON header: trailing bytes at offset " + std::to_string(in.Tell()));
  if (res.IsError() && handler.nestedTooDeep())
    return decodeError("bad JSON header: nested deeper than " + std::to_string(json::kMaxNesting) + " levels");
  if (res.IsError()) {
    return decodeError("bad JSON header near offset " + std::to_string(res.Offset()) + ": " +
                       std::string(rapidjson::GetParseError_En(res.Code())));
  }
  return {};
}

// ---- ROCKETMQ binary header ----------------------------------------------------------------

size_t rocketMQHeaderSize(const RemotingCommand& cmd) {
  size_t n = 2 + 1 + 2 + 4 + 4 + 4 + (cmd.remark ? cmd.remark->size() : 0) + 4;
  for (auto& [k, v] : cmd.extFields) n += 2 + k.size() + 4 + v.size();
  return n;
}

Result<void> decodeRocketMQHeader(std::string_view header, RemotingCommand& cmd) {
  ByteReader r(header);
  cmd.code = r.i16();
  uint8_t lang = r.u8();
  cmd.language = lang <= 12 ? static_cast<LanguageCode>(lang) : LanguageCode::OTHER;
  cmd.version = r.i16();
  cmd.opaque = r.i32();
  cmd.flag = r.i32();
  int32_t remarkLen = r.i32();
  if (!r.ok()) return decodeError("truncated ROCKETMQ header");
  if (remarkLen < 0 || static_cast<size_t>(remarkLen) > header.size())
    return decodeError("bad remark length " + std::to_string(remarkLen));
  if (remarkLen > 0) {
    auto remark = r.bytes(remarkLen);
    if (!r.ok()) return decodeError("truncated remark");
    cmd.remark.emplace(remark);
  }
  int32_t extLen = r.i32();
  if (!r.ok()) return decodeError("truncated ROCKETMQ header");
  if (extLen < 0 || static_cast<size_t>(extLen) > header.size())
    return decodeError("bad extFields length " + std::to_string(extLen));
  auto ext = r.bytes(extLen);
  if (!r.ok()) return decodeError("truncated extFields");
  ByteReader er(ext);
  cmd.extFields.reserve(16);
  while (er.ok() && er.remaining() > 0) {
    int16_t keyLen = er.i16();
    auto key = er.bytes(keyLen < 0 ? SIZE_MAX : keyLen);
    int32_t valueLen = er.i32();
    auto value = er.bytes(valueLen < 0 ? SIZE_MAX : valueLen);
    if (!er.ok()) return decodeError("truncated extFields entry");
    // Length 0 decodes as null in Java: an empty key or value is the same as absent.
    if (!key.empty() && !value.empty()) cmd.extFields.append(std::string(key), std::string(value));
  }
  return {};
}

void putString32(std::string& out, std::string_view s) {
  putBE32(out, static_cast<uint32_t>(s.size()));
  out.append(s);
}

}  // namespace

void encodeJsonHeader(const RemotingCommand& cmd, std::string& out) {
  size_t estimate = 160 + (cmd.remark ? cmd.remark->size() + 12 : 0);
  for (auto& [k, v] : cmd.extFields) estimate += k.size() + v.size() + 6;
  out.reserve(out.size() + estimate);
  out += "{\"code\":";
  appendInt(out, cmd.code);
  if (!cmd.extFields.empty()) {
    out += ",\"extFields\":{";
    bool first = true;
    for (auto& [k, v] : cmd.extFields) {
      if (!first) out += ',';
      first = false;
      json::appendQuoted(out, k);
      out += ':';
      json::appendQuoted(out, v);
    }
    out += '}';
  }
  out += ",\"flag\":";
  appendInt(out, cmd.flag);
  out += ",\"language\":\"";
  out += languageName(cmd.language);
  out += "\",\"opaque\":";
  appendInt(out, cmd.opaque);
  if (cmd.remark) {
    out += ",\"remark\":";
    json::appendQuoted(out, *cmd.remark);
  }
  out += cmd.serializeType == SerializeType::Json ? ",\"serializeTypeCurrentRPC\":\"JSON\",\"version\":"
                                                  : ",\"serializeTypeCurrentRPC\":\"ROCKETMQ\",\"version\":";
  appendInt(out, cmd.version);
  out += '}';
}

void encodeRocketMQHeader(const RemotingCommand& cmd, std::string& out) {
  out.reserve(out.size() + rocketMQHeaderSize(cmd));
  putBE16(out, static_cast<uint16_t>(cmd.code));
  out += static_cast<char>(cmd.language);
  putBE16(out, static_cast<uint16_t>(cmd.version));
  putBE32(out, static_cast<uint32_t>(cmd.opaque));
  putBE32(out, static_cast<uint32_t>(cmd.flag));
  putString32(out, cmd.remark ? std::string_view(*cmd.remark) : std::string_view());
  size_t extLen = 0;
  for (auto& [k, v] : cmd.extFields) extLen += 2 + k.size() + 4 + v.size();
  putBE32(out, static_cast<uint32_t>(extLen));
  for (auto& [k, v] : cmd.extFields) {
    putBE16(out, static_cast<uint16_t>(k.size()));
    out.append(k);
    putString32(out, v);
  }
}

void encodeFrameHeader(const RemotingCommand& cmd, std::string& out) {
  size_t start = out.size();
  out.append(8, '\0');  // total length + header-length word, patched below
  if (cmd.serializeType == SerializeType::RocketMQ) encodeRocketMQHeader(cmd, out);
  else encodeJsonHeader(cmd, out);
  size_t headerLen = out.size() - start - 8;
  size_t total = 4 + headerLen + cmd.bodySize();
  storeBE32(&out[start], static_cast<uint32_t>(total));
  storeBE32(&out[start + 4], (static_cast<uint32_t>(cmd.serializeType) << 24) | (headerLen & 0x00FFFFFF));
}

void encodeFramePrefix(const RemotingCommand& cmd, std::string& out) {
  encodeFrameHeader(cmd, out);
  out.append(cmd.body);
}

std::string encodeFrame(const RemotingCommand& cmd) {
  std::string out;
  out.reserve(256 + cmd.bodySize());
  encodeFramePrefix(cmd, out);
  for (auto& s : cmd.bodySegments) out.append(s.data, s.size);
  return out;
}

Result<RemotingCommand> decodeFrame(std::string_view frame) {
  if (frame.size() < 4) return decodeError("frame shorter than its header-length word");
  uint32_t word = loadBE32(frame.data());
  uint32_t type = word >> 24;
  size_t headerLen = word & 0x00FFFFFF;
  if (headerLen > frame.size() - 4)
    return decodeError("bad header length " + std::to_string(headerLen) + " > frame " + std::to_string(frame.size() - 4));
  std::string_view header = frame.substr(4, headerLen);
  RemotingCommand cmd;
  Result<void> r;
  if (type == 0) {
    cmd.serializeType = SerializeType::Json;
    r = decodeJsonHeader(header, cmd);
  } else if (type == 1) {
    cmd.serializeType = SerializeType::RocketMQ;
    r = decodeRocketMQHeader(header, cmd);
  } else {
    return decodeError("unknown serialize type " + std::to_string(type));
  }
  if (!r) return r.error();
  cmd.body.assign(frame.substr(4 + headerLen));
  return cmd;
}

}  // namespace rmq::net
