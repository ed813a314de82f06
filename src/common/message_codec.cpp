// Properties string, CommitLog record and batch body codecs (PROTOCOL.md §4.1, §4.5, §4.7).
#include "common/message_codec.h"

#include <cstring>

#include "common/bytes.h"
#include "common/response_code.h"

namespace rmq {

// ---- properties ----
void appendProperties(std::string& out, const Properties& props) {
  bool first = true;
  for (auto& [k, v] : props) {
    if (!first) out.push_back(prop::PROPERTY_SEPARATOR);
    first = false;
    out.append(k);
    out.push_back(prop::NAME_VALUE_SEPARATOR);
    out.append(v);
  }
}

std::string encodeProperties(const Properties& props) {
  std::string out;
  appendProperties(out, props);
  return out;
}

namespace {
// Calls fn(key, value) for each item Java's string2messageProperties would keep.
template <class Fn>
bool forEachProperty(std::string_view s, Fn&& fn) {
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t end = s.find(prop::PROPERTY_SEPARATOR, pos);
    if (end == std::string_view::npos) end = s.size();
    std::string_view item = s.substr(pos, end - pos);
    if (item.size() >= 3) {
      size_t sep = item.find(prop::NAME_VALUE_SEPARATOR);
      if (sep != std::string_view::npos && sep > 0 && sep + 1 < item.size())
        if (fn(item.substr(0, sep), item.substr(sep + 1))) return true;
    }
    pos = end + 1;
  }
  return false;
}
}  // namespace

Properties decodeProperties(std::string_view s) {
  Properties out;
  forEachProperty(s, [&](std::string_view k, std::string_view v) {
    out.emplace_back(k, v);  // duplicates kept (re-encoding stays byte-exact); lookups take the last
    return false;
  });
  return out;
}

void putEncodedProperties(JavaStringMap& map, std::string_view s) {
  forEachProperty(s, [&](std::string_view k, std::string_view v) {
    map.put(k, v);
    return false;
  });
}

void appendProperties(std::string& out, const JavaStringMap& map) {
  bool first = true;
  map.forEach([&](std::string_view k, std::string_view v) {
    if (!first) out.push_back(prop::PROPERTY_SEPARATOR);
    first = false;
    out.append(k).push_back(prop::NAME_VALUE_SEPARATOR);
    out.append(v);
  });
}

std::optional<std::string_view> findEncodedProperty(std::string_view props, std::string_view name) {
  std::optional<std::string_view> found;
  forEachProperty(props, [&](std::string_view k, std::string_view v) {
    if (k == name) found = v;  // keep scanning: the last duplicate wins
    return false;
  });
  return found;
}

// ---- record ----
namespace {
HostAddress readHost(ByteReader& r, bool v6) {
  HostAddress h;
  h.v6 = v6;
  auto ip = r.bytes(v6 ? 16 : 4);
  if (ip.size() == h.ipLength()) std::memcpy(h.ip.data(), ip.data(), ip.size());
  h.port = r.i32();
  return h;
}
char* writeHost(char* p, const HostAddress& h) {
  std::memcpy(p, h.ip.data(), h.ipLength());
  p += h.ipLength();
  storeBE32(p, static_cast<uint32_t>(h.port));
  return p + 4;
}
}  // namespace

RecordParse parseRecord(const char* data, size_t avail, RecordView& out, bool checkCRC) {
  if (avail < 8) return RecordParse::Truncated;
  int32_t total = static_cast<int32_t>(loadBE32(data));
  int32_t magic = static_cast<int32_t>(loadBE32(data + 4));
  if (magic == kBlankMagic) return RecordParse::Blank;
  if (magic != kMessageMagicV1 && magic != kMessageMagicV2) return RecordParse::Corrupt;
  if (total < 91) return RecordParse::Corrupt;
  if (static_cast<size_t>(total) > avail) return RecordParse::Truncated;
  ByteReader r(data, static_cast<size_t>(total));
  RecordView v;
  v.totalSize = r.i32();
  v.magic = r.i32();
  v.bodyCRC = r.i32();
  v.queueId = r.i32();
  v.flag = r.i32();
  v.queueOffset = r.i64();
  v.physicalOffset = r.i64();
  v.sysFlag = r.i32();
  v.bornTimestamp = r.i64();
  v.bornHost = readHost(r, v.sysFlag & sysflag::BORNHOST_V6);
  v.storeTimestamp = r.i64();
  v.storeHost = readHost(r, v.sysFlag & sysflag::STOREHOST_V6);
  v.reconsumeTimes = r.i32();
  v.preparedTransactionOffset = r.i64();
  int32_t bodyLen = r.i32();
  if (bodyLen < 0) return RecordParse::Corrupt;
  v.body = r.bytes(static_cast<size_t>(bodyLen));
  size_t topicLen = magic == kMessageMagicV2 ? r.u16() : r.u8();
  v.topic = r.bytes(topicLen);
  uint16_t propsLen = r.u16();
  v.properties = r.bytes(propsLen);
  if (!r.ok() || r.remaining() != 0) return RecordParse::Corrupt;
  if (checkCRC && crc32Masked(v.body) != v.bodyCRC) return RecordParse::Corrupt;
  v.raw = std::string_view(data, static_cast<size_t>(total));
  out = v;
  return RecordParse::Ok;
}

size_t recordSize(const RecordFields& f) {
  return 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + f.bornHost.encodedSize() + 8 + f.storeHost.encodedSize() + 4 + 8 +
         4 + f.body.size() + 1 + f.topic.size() + 2 + f.properties.size();
}

size_t encodeRecord(const RecordFields& f, char* dst) {
  size_t total = recordSize(f);
  int32_t sysFlag = f.sysFlag & ~(sysflag::BORNHOST_V6 | sysflag::STOREHOST_V6);
  if (f.bornHost.v6) sysFlag |= sysflag::BORNHOST_V6;
  if (f.storeHost.v6) sysFlag |= sysflag::STOREHOST_V6;
  char* p = dst;
  auto put32 = [&](int32_t v) { storeBE32(p, static_cast<uint32_t>(v)); p += 4; };
  auto put64 = [&](int64_t v) { storeBE64(p, static_cast<uint64_t>(v)); p += 8; };
  put32(static_cast<int32_t>(total));
  put32(kMessageMagicV1);
  put32(f.bodyCRC);
  put32(f.queueId);
  put32(f.flag);
  put64(f.queueOffset);
  put64(f.physicalOffset);
  put32(sysFlag);
  put64(f.bornTimestamp);
  p = writeHost(p, f.bornHost);
  put64(f.storeTimestamp);
  p = writeHost(p, f.storeHost);
  put32(f.reconsumeTimes);
  put64(f.preparedTransactionOffset);
  put32(static_cast<int32_t>(f.body.size()));
  if (!f.body.empty()) std::memcpy(p, f.body.data(), f.body.size());
  p += f.body.size();
  *p++ = static_cast<char>(f.topic.size());
  std::memcpy(p, f.topic.data(), f.topic.size());
  p += f.topic.size();
  storeBE16(p, static_cast<uint16_t>(f.properties.size()));
  p += 2;
  // (An empty string_view may carry a null pointer: memcpy of 0 bytes from null is still UB.)
  if (!f.properties.empty()) std::memcpy(p, f.properties.data(), f.properties.size());
  return total;
}

std::string encodeMessageExt(const MessageExt& m) {
  std::string props = encodeProperties(m.properties);
  RecordFields f{m.bodyCRC, m.queueId, m.flag, m.queueOffset, m.commitLogOffset, m.sysFlag,
                 m.bornTimestamp, m.bornHost, m.storeTimestamp, m.storeHost, m.reconsumeTimes,
                 m.preparedTransactionOffset, m.body, m.topic, props};
  std::string out(recordSize(f), '\0');
  encodeRecord(f, out.data());
  return out;
}

MessageExt toMessageExt(const RecordView& r) {
  MessageExt m;
  m.topic.assign(r.topic);
  m.flag = r.flag;
  m.properties = decodeProperties(r.properties);
  m.body.assign(r.body);
  m.queueId = r.queueId;
  m.storeSize = r.totalSize;
  m.queueOffset = r.queueOffset;
  m.sysFlag = r.sysFlag;
  m.bornTimestamp = r.bornTimestamp;
  m.bornHost = r.bornHost;
  m.storeTimestamp = r.storeTimestamp;
  m.storeHost = r.storeHost;
  m.commitLogOffset = r.physicalOffset;
  m.bodyCRC = r.bodyCRC;
  m.reconsumeTimes = r.reconsumeTimes;
  m.preparedTransactionOffset = r.preparedTransactionOffset;
  return m;
}

Result<MessageExt> decodeMessage(std::string_view record, bool inflateBody) {
  RecordView v;
  if (parseRecord(record.data(), record.size(), v, false) != RecordParse::Ok)
    return makeError(ResponseCode::SYSTEM_ERROR, "malformed message record");
  MessageExt m = toMessageExt(v);
  if (inflateBody && (v.sysFlag & sysflag::COMPRESSED)) {
    auto inflated = zlibInflate(v.body);
    if (!inflated) return inflated.error();
    m.body = std::move(inflated.value());
  }
  return m;
}

Result<std::vector<MessageExt>> decodeMessages(std::string_view bytes, bool inflateBody) {
  std::vector<MessageExt> out;
  while (!bytes.empty()) {
    if (bytes.size() < 4) return makeError(ResponseCode::SYSTEM_ERROR, "trailing bytes after last record");
    auto total = static_cast<int32_t>(loadBE32(bytes.data()));
    if (total <= 0 || static_cast<size_t>(total) > bytes.size())
      return makeError(ResponseCode::SYSTEM_ERROR, "record size exceeds body");
    auto m = decodeMessage(bytes.substr(0, static_cast<size_t>(total)), inflateBody);
    if (!m) return m.error();
    out.push_back(std::move(m.value()));
    bytes.remove_prefix(static_cast<size_t>(total));
  }
  return out;
}

// ---- batch ----
std::string encodeBatch(const std::vector<Message>& msgs) {
  std::string out;
  for (auto& m : msgs) {
    std::string props = encodeProperties(m.properties);
    putBE32(out, static_cast<uint32_t>(4 + 4 + 4 + 4 + 4 + m.body.size() + 2 + props.size()));
    putBE32(out, 0);  // magic: ignored by the broker
    putBE32(out, 0);  // body CRC: recomputed by the broker
    putBE32(out, static_cast<uint32_t>(m.flag));
    putBE32(out, static_cast<uint32_t>(m.body.size()));
    out.append(m.body);
    putBE16(out, static_cast<uint16_t>(props.size()));
    out.append(props);
  }
  return out;
}

Result<std::vector<BatchItem>> decodeBatch(std::string_view body) {
  std::vector<BatchItem> items;
  ByteReader r(body);
  while (r.ok() && r.remaining() > 0) {
    size_t start = r.position();
    int32_t total = r.i32();
    r.skip(8);  // magic, body CRC
    BatchItem it;
    it.flag = r.i32();
    int32_t bodyLen = r.i32();
    if (!r.ok() || bodyLen < 0) break;
    it.body = r.bytes(static_cast<size_t>(bodyLen));
    it.properties = r.bytes(r.u16());
    if (!r.ok() || static_cast<size_t>(total) != r.position() - start)
      return makeError(ResponseCode::MESSAGE_ILLEGAL, "malformed batch body: item size mismatch");
    items.push_back(it);
  }
  if (!r.ok()) return makeError(ResponseCode::MESSAGE_ILLEGAL, "malformed batch body: truncated item");
  return items;
}

}  // namespace rmq
