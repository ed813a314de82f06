#include "roles/broker/registration/register_body.h"

#include "common/json.h"

namespace rmq::broker {

std::string encodeRegisterBody(const DataVersion& version, int64_t epoch, const std::vector<TopicConfig>& topics,
                               int32_t brokerPermission) {
  bool brokerRW = perm::isReadable(brokerPermission) && perm::isWriteable(brokerPermission);
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("filterServerList");
  w.StartArray();
  w.EndArray();
  w.Key("topicConfigSerializeWrapper");
  w.StartObject();
  w.Key("dataVersion");
  w.StartObject();
  w.Key("counter"); w.Int64(version.counter);
  if (epoch > 0) { w.Key("stateVersion"); w.Int64(epoch); }
  w.Key("timestamp"); w.Int64(version.timestamp);
  w.EndObject();
  w.Key("topicConfigTable");
  w.StartObject();
  for (const auto& t : topics) {
    w.Key(t.topicName.c_str(), static_cast<rapidjson::SizeType>(t.topicName.size()));
    w.StartObject();
    w.Key("order"); w.Bool(t.order);
    w.Key("perm"); w.Int(brokerRW ? t.perm : brokerPermission);
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

}  // namespace rmq::broker
