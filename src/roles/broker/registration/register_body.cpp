#include "roles/broker/registration/register_body.h"

#include <fmt/format.h>

#include "common/bytes.h"
#include "common/json.h"
#include "common/message_codec.h"

namespace rmq::broker {
namespace {

// The perm a topic is announced with: its own on a read-write broker, the broker's otherwise.
int32_t announcedPerm(const TopicConfig& t, int32_t brokerPermission) {
  bool brokerRW = perm::isReadable(brokerPermission) && perm::isWriteable(brokerPermission);
  return brokerRW ? t.perm : brokerPermission;
}

void writeDataVersion(rmq::json::Writer& w, const DataVersion& version, int64_t epoch) {
  w.StartObject();
  w.Key("counter"); w.Int64(version.counter);
  if (epoch > 0) { w.Key("stateVersion"); w.Int64(epoch); }
  w.Key("timestamp"); w.Int64(version.timestamp);
  w.EndObject();
}

void putBlock(std::string& out, std::string_view bytes) {
  putBE32(out, static_cast<uint32_t>(bytes.size()));
  out.append(bytes);
}

}  // namespace

std::string encodeDataVersion(const DataVersion& version, int64_t epoch) {
  rmq::json::Buffer buf;
  rmq::json::Writer w(buf);
  writeDataVersion(w, version, epoch);
  return std::string(buf.GetString(), buf.GetSize());
}

bool sameDataVersionJson(std::string_view a, std::string_view b) {
  rapidjson::Document da, db;
  if (!rmq::json::parse(a, da) || !rmq::json::parse(b, db) || !da.IsObject() || !db.IsObject()) return false;
  for (const char* key : {"counter", "timestamp", "stateVersion"}) {
    if (rmq::json::getInt64(da, key) != rmq::json::getInt64(db, key)) return false;
  }
  return true;
}

std::string encodeRegisterBody(const DataVersion& version, int64_t epoch, const std::vector<TopicConfig>& topics,
                               int32_t brokerPermission) {
  rmq::json::Buffer buf;
  rmq::json::Writer w(buf);
  w.StartObject();
  w.Key("filterServerList");
  w.StartArray();
  w.EndArray();
  w.Key("topicConfigSerializeWrapper");
  w.StartObject();
  w.Key("dataVersion");
  writeDataVersion(w, version, epoch);
  w.Key("topicConfigTable");
  w.StartObject();
  for (const auto& t : topics) {
    w.Key(t.topicName.c_str(), static_cast<rapidjson::SizeType>(t.topicName.size()));
    w.StartObject();
    w.Key("order"); w.Bool(t.order);
    w.Key("perm"); w.Int(announcedPerm(t, brokerPermission));
    w.Key("readQueueNums"); w.Int(t.readQueueNums);
    w.Key("topicFilterType"); w.String(topicFilterTypeName(t.topicFilterType));
    w.Key("topicName"); w.String(t.topicName.c_str(), static_cast<rapidjson::SizeType>(t.topicName.size()));
    w.Key("topicSysFlag"); w.Int(t.topicSysFlag);
    w.Key("writeQueueNums"); w.Int(t.writeQueueNums);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::string encodeRegisterBodyCompressed(const DataVersion& version, int64_t epoch,
                                         const std::vector<TopicConfig>& topics, int32_t brokerPermission) {
  std::string raw;
  raw.reserve(64 + topics.size() * 48);
  putBlock(raw, encodeDataVersion(version, epoch));
  putBE32(raw, static_cast<uint32_t>(topics.size()));
  std::string line;
  for (const auto& t : topics) {
    line.clear();
    fmt::format_to(std::back_inserter(line), "{} {} {} {} {}", t.topicName, t.readQueueNums, t.writeQueueNums,
                   announcedPerm(t, brokerPermission), topicFilterTypeName(t.topicFilterType));
    putBlock(raw, line);
  }
  putBlock(raw, "[]");
  return zlibCompress(raw, kRegisterBodyZlibLevel);
}

}  // namespace rmq::broker
