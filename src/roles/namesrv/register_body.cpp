#include "roles/namesrv/register_body.h"

#include <fmt/format.h>
#include <zlib.h>

#include "common/bytes.h"
#include "common/json.h"
#include "common/message_codec.h"

namespace rmq::namesrv {
namespace {

constexpr size_t kMaxInflatedSize = 256u * 1024 * 1024;  // refuse zip bombs

Error bodyError(std::string what) { return makeError(1, "bad REGISTER_BROKER body: " + std::move(what)); }

DataVersion readDataVersion(const rapidjson::Value& v) {
  DataVersion dv;
  dv.timestamp = json::getInt64(v, "timestamp").value_or(0);
  dv.counter = json::getInt64(v, "counter").value_or(0);
  dv.stateVersion = json::getInt64(v, "stateVersion");  // 5.x / failover brokers only
  return dv;
}

Result<RegisterBrokerBody> readWrapper(const rapidjson::Value& wrapper) {
  RegisterBrokerBody out;
  if (!wrapper.IsObject()) return bodyError("topicConfigSerializeWrapper is not an object");
  if (auto it = wrapper.FindMember("dataVersion"); it != wrapper.MemberEnd()) out.dataVersion = readDataVersion(it->value);
  auto table = wrapper.FindMember("topicConfigTable");
  if (table == wrapper.MemberEnd() || table->value.IsNull()) return out;
  if (!table->value.IsObject()) return bodyError("topicConfigTable is not an object");
  for (auto& m : table->value.GetObject()) {
    const auto& tc = m.value;
    TopicConfigEntry e;
    e.topicName = std::string(json::getString(tc, "topicName").value_or(json::keyView(m.name)));
    e.readQueueNums = static_cast<int32_t>(json::getInt64(tc, "readQueueNums").value_or(16));
    e.writeQueueNums = static_cast<int32_t>(json::getInt64(tc, "writeQueueNums").value_or(16));
    e.perm = static_cast<int32_t>(json::getInt64(tc, "perm").value_or(6));
    e.topicSysFlag = static_cast<int32_t>(json::getInt64(tc, "topicSysFlag").value_or(0));
    out.topics.push_back(std::move(e));
  }
  return out;
}

// "topicName readQueueNums writeQueueNums perm topicFilterType" (TopicConfig.encode()).
Result<TopicConfigEntry> parseTopicLine(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t sp = s.find(' ', pos);
    if (sp == std::string_view::npos) sp = s.size();
    parts.push_back(s.substr(pos, sp - pos));
    pos = sp + 1;
  }
  if (parts.size() < 4) return bodyError(fmt::format("bad compressed topic config '{}'", s));
  auto num = [](std::string_view t) { return static_cast<int32_t>(std::strtol(std::string(t).c_str(), nullptr, 10)); };
  TopicConfigEntry e;
  e.topicName = std::string(parts[0]);
  e.readQueueNums = num(parts[1]);
  e.writeQueueNums = num(parts[2]);
  e.perm = num(parts[3]);
  return e;
}

Result<RegisterBrokerBody> decodeCompressed(std::string_view body) {
  auto raw = zlibInflate(body, kMaxInflatedSize);
  if (!raw) return bodyError(raw.error().message);
  ByteReader r(*raw);
  auto block = [&](const char* what) -> Result<std::string_view> {
    int32_t len = r.i32();
    if (!r.ok() || len < 0 || static_cast<size_t>(len) > r.remaining()) return bodyError(fmt::format("truncated {}", what));
    return r.bytes(static_cast<size_t>(len));
  };
  RegisterBrokerBody out;
  auto dv = block("dataVersion");
  if (!dv) return dv.error();
  auto version = decodeDataVersion(*dv);
  if (!version) return version.error();
  out.dataVersion = *version;
  int32_t count = r.i32();
  if (!r.ok() || count < 0) return bodyError("truncated topic count");
  for (int32_t i = 0; i < count; ++i) {
    auto line = block("topic config");
    if (!line) return line.error();
    auto tc = parseTopicLine(*line);
    if (!tc) return tc.error();
    out.topics.push_back(std::move(*tc));
  }
  auto filters = block("filterServerList");
  if (!filters) return filters.error();
  out.filterServerList.emplace();
  rapidjson::Document doc;
  if (json::parse(*filters, doc) && doc.IsArray()) {
    for (auto& s : doc.GetArray()) if (s.IsString()) out.filterServerList->emplace_back(s.GetString(), s.GetStringLength());
  }
  return out;
}

}  // namespace

Result<DataVersion> decodeDataVersion(std::string_view body) {
  rapidjson::Document doc;
  if (auto r = json::parse(body, doc); !r) return makeError(1, "bad DataVersion: " + r.error().message);
  if (!doc.IsObject()) return makeError(1, "bad DataVersion: not an object");
  return readDataVersion(doc);
}

Result<RegisterBrokerBody> decodeTopicConfigWrapper(std::string_view body) {
  rapidjson::Document doc;
  if (auto r = json::parse(body, doc); !r) return bodyError(r.error().message);
  return readWrapper(doc);
}

Result<RegisterBrokerBody> decodeRegisterBrokerBody(std::string_view body, bool compressed) {
  if (compressed) return decodeCompressed(body);
  rapidjson::Document doc;
  if (auto r = json::parse(body, doc); !r) return bodyError(r.error().message);
  if (!doc.IsObject()) return bodyError("not an object");
  RegisterBrokerBody out;
  if (auto it = doc.FindMember("topicConfigSerializeWrapper"); it != doc.MemberEnd() && !it->value.IsNull()) {
    auto w = readWrapper(it->value);
    if (!w) return w.error();
    out = std::move(*w);
  }
  out.filterServerList.emplace();
  if (auto it = doc.FindMember("filterServerList"); it != doc.MemberEnd() && it->value.IsArray()) {
    for (auto& s : it->value.GetArray()) if (s.IsString()) out.filterServerList->emplace_back(s.GetString(), s.GetStringLength());
  }
  return out;
}

int32_t rocketmqCrc32(std::string_view data) {
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()));
  return static_cast<int32_t>(crc & 0x7FFFFFFF);
}

}  // namespace rmq::namesrv
