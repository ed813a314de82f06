#include "roles/broker/transaction/transactional_message.h"

#include <charconv>

#include "roles/broker/delivery/stored_message.h"
#include "roles/broker/metadata/topic_config.h"

namespace rmq::broker::tx {

namespace {
template <class T>
std::optional<T> parseNumber(std::optional<std::string_view> s) {
  if (!s || s->empty()) return std::nullopt;
  T v{};
  auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
  if (ec != std::errc() || end != s->data() + s->size()) return std::nullopt;
  return v;
}
}  // namespace

bool isHalfMessage(std::string_view storedProperties) {
  auto tran = findEncodedProperty(storedProperties, prop::TRAN_MSG);
  return tran && *tran == "true";
}

void toHalfMessage(store::MessageToStore& m, std::string& propsBuf) {
  // TransactionalMessageBridge.parseHalfMessageInner: the string written from the message's map
  // (WAIT back in) after REAL_TOPIC / REAL_QID were put, in HashMap order.
  JavaStringMap props;
  putEncodedProperties(props, m.properties);
  if (m.waitProperty) props.put(prop::WAIT, *m.waitProperty);
  std::string realQid = std::to_string(m.queueId);
  props.put(prop::REAL_TOPIC, m.topic);
  props.put(prop::REAL_QID, realQid);
  std::string encoded;
  appendProperties(encoded, props);
  propsBuf = std::move(encoded);
  m.properties = propsBuf;
  m.waitProperty.reset();  // it may view the old string; the half's string holds WAIT now
  m.sysFlag = sysflag::resetTransaction(m.sysFlag, sysflag::TRANSACTION_NOT_TYPE);
  m.topic = topics::TRANS_HALF_TOPIC;
  m.queueId = 0;
}

std::optional<store::MessageToStore> commitMessage(const RecordView& half) {
  auto realTopic = findEncodedProperty(half.properties, prop::REAL_TOPIC);
  auto realQid = parseNumber<int32_t>(findEncodedProperty(half.properties, prop::REAL_QID));
  if (!realTopic || realTopic->empty() || !realQid || *realQid < 0) return std::nullopt;
  store::MessageToStore m = reputMessage(half, *realTopic, *realQid, half.properties);
  m.sysFlag = sysflag::resetTransaction(half.sysFlag, sysflag::TRANSACTION_COMMIT_TYPE);
  m.preparedTransactionOffset = half.physicalOffset;
  return m;
}

store::MessageToStore opMessage(int64_t halfQueueOffset, const HostAddress& storeHost, int64_t nowMs,
                                std::string& bodyBuf) {
  bodyBuf = std::to_string(halfQueueOffset);
  store::MessageToStore m;
  m.topic = topics::TRANS_OP_HALF_TOPIC;
  m.queueId = 0;
  m.body = bodyBuf;
  m.properties = OP_PROPERTIES;
  m.bornTimestamp = nowMs;
  m.bornHost = storeHost;
  return m;
}

store::MessageToStore renewHalfMessage(const RecordView& half, int32_t checkTimes, std::string& propsBuf) {
  Properties props = decodeProperties(half.properties);
  setProperty(props, prop::TRANSACTION_CHECK_TIMES, std::to_string(checkTimes));
  propsBuf = encodeProperties(props);
  return reputMessage(half, half.topic, half.queueId, propsBuf);
}

store::MessageToStore resumedHalfMessage(const RecordView& rec, std::string& propsBuf) {
  auto m = renewHalfMessage(rec, 0, propsBuf);
  m.topic = topics::TRANS_HALF_TOPIC;
  m.queueId = 0;
  return m;
}

store::MessageToStore discardMessage(const RecordView& half) {
  return reputMessage(half, topics::TRANS_CHECK_MAX_TIME_TOPIC, 0, half.properties);
}

store::MessageToStore renewImmunityHalfMessage(const RecordView& half, int32_t checkTimes, int64_t halfQueueOffset,
                                               std::string& propsBuf) {
  Properties props = decodeProperties(half.properties);
  setProperty(props, prop::TRANSACTION_CHECK_TIMES, std::to_string(checkTimes));
  if (!findProperty(props, prop::TRAN_PREPARED_QUEUE_OFFSET))
    setProperty(props, prop::TRAN_PREPARED_QUEUE_OFFSET, std::to_string(halfQueueOffset));
  propsBuf = encodeProperties(props);
  return reputMessage(half, half.topic, half.queueId, propsBuf);
}

int32_t checkTimesOf(const RecordView& half) {
  return parseNumber<int32_t>(findEncodedProperty(half.properties, prop::TRANSACTION_CHECK_TIMES)).value_or(0);
}

std::optional<int64_t> checkImmunityMs(const RecordView& half, int64_t transactionTimeOutMs) {
  auto raw = findEncodedProperty(half.properties, prop::CHECK_IMMUNITY_TIME_IN_SECONDS);
  if (!raw) return std::nullopt;
  int64_t s = parseNumber<int64_t>(raw).value_or(-1);
  return s == -1 ? transactionTimeOutMs : s * 1000;
}

std::optional<int64_t> preparedQueueOffsetOf(const RecordView& half) {
  auto raw = findEncodedProperty(half.properties, prop::TRAN_PREPARED_QUEUE_OFFSET);
  if (!raw) return std::nullopt;
  return parseNumber<int64_t>(raw).value_or(-1);
}

std::string checkStateBody(const RecordView& half) {
  RecordFields f{half.bodyCRC, half.queueId, half.flag, half.queueOffset, half.physicalOffset, half.sysFlag,
                 half.bornTimestamp, half.bornHost, half.storeTimestamp, half.storeHost, half.reconsumeTimes,
                 half.preparedTransactionOffset, half.body, half.topic, half.properties};
  if (auto t = findEncodedProperty(half.properties, prop::REAL_TOPIC)) f.topic = *t;
  if (auto q = parseNumber<int32_t>(findEncodedProperty(half.properties, prop::REAL_QID))) f.queueId = *q;
  std::string out(recordSize(f), '\0');
  encodeRecord(f, out.data());
  return out;
}

}  // namespace rmq::broker::tx
