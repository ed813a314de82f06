#include "roles/broker/delivery/stored_message.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/java_string_map.h"
#include "common/message_id.h"

namespace rmq::broker {

bool waitStoreMsgOk(std::optional<std::string_view> wait) {
  if (!wait) return true;
  constexpr std::string_view kTrue = "true";
  return std::equal(wait->begin(), wait->end(), kTrue.begin(), kTrue.end(),
                    [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

bool buildStoredProperties(std::string_view orig, std::string_view cluster, std::string& out,
                           std::optional<std::string_view>& wait) {
  thread_local JavaStringMap map;  // reused: no allocation per message once warmed up
  map.clear();
  putEncodedProperties(map, orig);
  map.put(prop::CLUSTER, cluster);
  wait = map.remove(prop::WAIT);
  out.clear();
  appendProperties(out, map);
  return waitStoreMsgOk(wait);
}

bool buildBatchProperties(std::string_view orig, std::string_view cluster, std::string& out) {
  thread_local JavaStringMap map;
  map.clear();
  putEncodedProperties(map, orig);
  map.put(prop::CLUSTER, cluster);
  out.clear();
  appendProperties(out, map);
  return waitStoreMsgOk(map.get(prop::WAIT));
}

HostAddress peerHostAddress(const std::string& remoteAddress) {
  HostAddress a;
  if (!HostAddress::parse(remoteAddress, a)) return a;
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (a.v6 && std::equal(kMapped, kMapped + 12, a.ip.begin())) {  // ::ffff:a.b.c.d -> IPv4
    HostAddress v4;
    std::copy(a.ip.begin() + 12, a.ip.end(), v4.ip.begin());
    v4.port = a.port;
    return v4;
  }
  return a;
}

store::MessageToStore reputMessage(const RecordView& rec, std::string_view topic, int32_t queueId,
                                   std::string_view properties) {
  store::MessageToStore m;
  m.topic = topic;
  m.queueId = queueId;
  m.flag = rec.flag;
  m.body = rec.body;
  m.properties = properties;
  m.sysFlag = rec.sysFlag;
  m.bornTimestamp = rec.bornTimestamp;
  m.bornHost = rec.bornHost;
  m.reconsumeTimes = rec.reconsumeTimes;
  return m;
}

std::optional<store::MessageToStore> delayTimeup(const RecordView& rec) { return timeupMessage(rec, rec.properties); }

std::optional<store::MessageToStore> timeupMessage(const RecordView& rec, std::string_view properties) {
  auto realTopic = findEncodedProperty(rec.properties, prop::REAL_TOPIC);
  auto realQid = findEncodedProperty(rec.properties, prop::REAL_QID);
  if (!realTopic || !realQid || realTopic->empty()) return std::nullopt;
  int32_t queueId = 0;
  auto [end, ec] = std::from_chars(realQid->data(), realQid->data() + realQid->size(), queueId);
  if (ec != std::errc() || end != realQid->data() + realQid->size() || queueId < 0) return std::nullopt;
  store::MessageToStore m = reputMessage(rec, *realTopic, queueId, properties);
  m.delayDelivered = true;
  return m;
}

std::string sendBackProperties(const RecordView& rec, std::string_view delayLevel) {
  JavaStringMap props;
  putEncodedProperties(props, rec.properties);
  if (!props.get(prop::RETRY_TOPIC)) props.put(prop::RETRY_TOPIC, rec.topic);
  props.put(prop::WAIT, "false");
  props.put(prop::DELAY, delayLevel);
  std::string offsetMsgId;
  if (auto origin = props.get(prop::ORIGIN_MESSAGE_ID); !origin || origin->empty()) {
    offsetMsgId = createOffsetMsgId(rec.storeHost, rec.physicalOffset);
    props.put(prop::ORIGIN_MESSAGE_ID, offsetMsgId);
  }
  std::string encoded;
  appendProperties(encoded, props);
  return encoded;
}

}  // namespace rmq::broker
