#include "client/trace_data.h"

#include <charconv>

namespace rmq::client::trace {
namespace {

// Java's String.split on one character: trailing empty parts are dropped.
std::vector<std::string_view> splitDroppingTrailingEmpty(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    size_t next = s.find(sep, pos);
    parts.push_back(s.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  while (!parts.empty() && parts.back().empty()) parts.pop_back();
  return parts;
}

template <class Int>
bool parseInt(std::string_view s, Int& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parseBool(std::string_view s) {  // Boolean.parseBoolean: "true" in any case
  if (s.size() != 4) return false;
  const char* t = "true";
  for (size_t i = 0; i < 4; ++i)
    if ((s[i] | 0x20) != t[i]) return false;
  return true;
}

// Fields 2..8 of a Pub and an EndTransaction record: region, group, the message's topic, id, tags,
// keys and store host.
void readMessageFields(const std::vector<std::string_view>& f, TraceRecord& r) {
  r.regionId = f[2];
  r.groupName = f[3];
  r.topic = f[4];
  r.msgId = f[5];
  r.tags = f[6];
  r.keys = f[7];
  r.storeHost = f[8];
}

std::optional<TraceRecord> decodePub(const std::vector<std::string_view>& f) {
  if (f.size() < 12) return std::nullopt;
  TraceRecord r;
  r.type = TraceType::Pub;
  readMessageFields(f, r);
  if (!parseInt(f[1], r.timeStamp) || !parseInt(f[9], r.bodyLength) || !parseInt(f[10], r.costTime) ||
      !parseInt(f[11], r.msgType))
    return std::nullopt;
  if (f.size() == 13) {
    r.success = parseBool(f[12]);
  } else if (f.size() >= 14) {
    r.offsetMsgId = f[12];
    r.success = parseBool(f[13]);
    if (f.size() >= 15) r.clientHost = f[14];
  }
  return r;
}

std::optional<TraceRecord> decodeSubBefore(const std::vector<std::string_view>& f) {
  if (f.size() < 8) return std::nullopt;
  TraceRecord r;
  r.type = TraceType::SubBefore;
  r.regionId = f[2];
  r.groupName = f[3];
  r.requestId = f[4];
  r.msgId = f[5];
  r.keys = f[7];
  if (!parseInt(f[1], r.timeStamp) || !parseInt(f[6], r.retryTimes)) return std::nullopt;
  return r;
}

std::optional<TraceRecord> decodeSubAfter(const std::vector<std::string_view>& f) {
  if (f.size() < 6) return std::nullopt;
  TraceRecord r;
  r.type = TraceType::SubAfter;
  r.requestId = f[1];
  r.msgId = f[2];
  r.success = parseBool(f[4]);
  r.keys = f[5];
  if (!parseInt(f[3], r.costTime)) return std::nullopt;
  if (f.size() >= 7 && !parseInt(f[6], r.contextCode)) return std::nullopt;
  if (f.size() >= 9) {
    if (!parseInt(f[7], r.timeStamp)) return std::nullopt;
    r.groupName = f[8];
  }
  return r;
}

std::optional<TraceRecord> decodeEndTransaction(const std::vector<std::string_view>& f) {
  if (f.size() < 13) return std::nullopt;
  TraceRecord r;
  r.type = TraceType::EndTransaction;
  readMessageFields(f, r);
  r.transactionId = f[10];
  r.transactionState = f[11];
  r.fromTransactionCheck = parseBool(f[12]);
  if (!parseInt(f[1], r.timeStamp) || !parseInt(f[9], r.msgType)) return std::nullopt;
  return r;
}

}  // namespace

std::string_view traceTypeName(TraceType t) {
  switch (t) {
    case TraceType::Pub: return "Pub";
    case TraceType::SubBefore: return "SubBefore";
    case TraceType::SubAfter: return "SubAfter";
    case TraceType::EndTransaction: return "EndTransaction";
  }
  return "";
}

std::vector<TraceRecord> decodeTraceData(std::string_view body) {
  std::vector<TraceRecord> out;
  if (body.empty()) return out;
  for (auto context : splitDroppingTrailingEmpty(body, kFieldSplitor)) {
    auto f = splitDroppingTrailingEmpty(context, kContentSplitor);
    if (f.empty()) continue;
    std::optional<TraceRecord> r;
    if (f[0] == "Pub") r = decodePub(f);
    else if (f[0] == "SubBefore") r = decodeSubBefore(f);
    else if (f[0] == "SubAfter") r = decodeSubAfter(f);
    else if (f[0] == "EndTransaction") r = decodeEndTransaction(f);
    if (r) out.push_back(std::move(*r));
  }
  return out;
}

std::string encodeTraceRecord(const TraceRecord& r) {
  std::string s;
  auto add = [&s](auto&& v, char end = kContentSplitor) {
    using V = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<V, bool>) s += v ? "true" : "false";
    else if constexpr (std::is_arithmetic_v<V>) s += std::to_string(v);
    else s += v;
    s += end;
  };
  add(traceTypeName(r.type));
  switch (r.type) {
    case TraceType::Pub:
      add(r.timeStamp), add(r.regionId), add(r.groupName), add(r.topic), add(r.msgId), add(r.tags), add(r.keys);
      add(r.storeHost), add(r.bodyLength), add(r.costTime), add(r.msgType), add(r.offsetMsgId);
      add(r.success, kFieldSplitor);
      break;
    case TraceType::SubBefore:
      add(r.timeStamp), add(r.regionId), add(r.groupName), add(r.requestId), add(r.msgId), add(r.retryTimes);
      add(r.keys, kFieldSplitor);
      break;
    case TraceType::SubAfter:
      add(r.requestId), add(r.msgId), add(r.costTime), add(r.success), add(r.keys), add(r.contextCode);
      add(r.timeStamp), add(r.groupName, kFieldSplitor);
      break;
    case TraceType::EndTransaction:
      add(r.timeStamp), add(r.regionId), add(r.groupName), add(r.topic), add(r.msgId), add(r.tags), add(r.keys);
      add(r.storeHost), add(r.msgType), add(r.transactionId), add(r.transactionState);
      add(r.fromTransactionCheck, kFieldSplitor);
      break;
  }
  return s;
}

}  // namespace rmq::client::trace
