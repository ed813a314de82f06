#include "roles/broker/delivery/stored_message.h"

#include <algorithm>
#include <charconv>

namespace rmq::broker {

bool buildStoredProperties(std::string_view orig, std::string_view cluster, bool dropDelay, std::string& out) {
  bool wait = true;
  out.clear();
  out.reserve(orig.size() + cluster.size() + 16);
  size_t pos = 0;
  while (pos < orig.size()) {
    size_t end = orig.find(prop::PROPERTY_SEPARATOR, pos);
    if (end == std::string_view::npos) end = orig.size();
    std::string_view item = orig.substr(pos, end - pos);
    pos = end + 1;
    size_t eq = item.find(prop::NAME_VALUE_SEPARATOR);
    std::string_view name = item.substr(0, eq);
    if (eq == std::string_view::npos || name.empty()) continue;  // Java drops malformed items
    if (name == prop::WAIT) {
      wait = item.substr(eq + 1) == "true";
      continue;
    }
    if (name == prop::CLUSTER || (dropDelay && name == prop::DELAY)) continue;
    out.append(item);
    out.push_back(prop::PROPERTY_SEPARATOR);
  }
  out.append(prop::CLUSTER).push_back(prop::NAME_VALUE_SEPARATOR);
  out.append(cluster).push_back(prop::PROPERTY_SEPARATOR);
  if (dropDelay) out.append(prop::DELAY).append("\x01" "0\x02");
  return wait;
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

std::optional<store::MessageToStore> delayTimeup(const RecordView& rec) {
  auto realTopic = findEncodedProperty(rec.properties, prop::REAL_TOPIC);
  auto realQid = findEncodedProperty(rec.properties, prop::REAL_QID);
  if (!realTopic || !realQid || realTopic->empty()) return std::nullopt;
  int32_t queueId = 0;
  auto [end, ec] = std::from_chars(realQid->data(), realQid->data() + realQid->size(), queueId);
  if (ec != std::errc() || end != realQid->data() + realQid->size() || queueId < 0) return std::nullopt;
  store::MessageToStore m = reputMessage(rec, *realTopic, queueId, rec.properties);
  m.delayDelivered = true;
  return m;
}

}  // namespace rmq::broker
