#include "roles/broker/delivery/offset_moved_event.h"

#include "common/log.h"
#include "common/message.h"
#include "common/message_codec.h"
#include "roles/broker/processors/admin_support.h"
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/metadata/topic_config.h"
#include "store/message_store.h"

namespace rmq::broker {

std::string encodeOffsetMovedEvent(const OffsetMovedEvent& e, const std::string& brokerName) {
  json::Writer w;
  w.beginObject().key("consumerGroup").value(e.consumerGroup).key("messageQueue").beginObject()
      .key("brokerName").value(brokerName).key("queueId").value(e.queueId).key("topic").value(e.topic).endObject()
      .key("offsetNew").value(e.offsetNew).key("offsetRequest").value(e.offsetRequest).endObject();
  return w.take();
}

void storeOffsetMovedEvent(BrokerContext& ctx, const OffsetMovedEvent& e) {
  std::string body = encodeOffsetMovedEvent(e, ctx.config.brokerName);
  Properties props;
  setProperty(props, prop::TAGS, e.consumerGroup);
  std::string encodedProps = encodeProperties(props);
  store::MessageToStore m;
  m.topic = topics::OFFSET_MOVED_EVENT;
  m.queueId = 0;
  m.body = body;
  m.properties = encodedProps;
  m.bornTimestamp = nowMillis();
  m.bornHost = ctx.storeHost;
  auto res = ctx.store.append(m);
  if (!res.ok())
    log::warn("OFFSET_MOVED_EVENT for {} {}:{} not stored: {} {}", e.consumerGroup, e.topic, e.queueId,
              store::toString(res.status), res.error);
}

}  // namespace rmq::broker
