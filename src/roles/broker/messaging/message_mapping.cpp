#include "roles/broker/messaging/message_mapping.h"

#include <openssl/evp.h>

#include <array>

#include "common/message_codec.h"
#include "common/message_id.h"
#include "common/timer_properties.h"
#include "grpc/grpc_wire.h"
#include "roles/broker/messaging/proto_time.h"

namespace rmq::broker::messaging {

namespace {

using Timestamp = google::protobuf::Timestamp;

// MessageConst.STRING_HASH_SET (4.9/5.x) plus the timer properties.
constexpr std::array<std::string_view, 48> kSystemNames = {
    "TRACE_ON", "MSG_REGION", "KEYS", "TAGS", "WAIT", "DELAY", "RETRY_TOPIC", "REAL_TOPIC", "REAL_QID",
    "TRAN_MSG", "PGROUP", "MIN_OFFSET", "MAX_OFFSET", "BUYER_ID", "ORIGIN_MESSAGE_ID", "TRANSFER_FLAG",
    "CORRECTION_FLAG", "MQ2_FLAG", "RECONSUME_TIME", "UNIQ_KEY", "MAX_RECONSUME_TIMES", "CONSUME_START_TIME",
    "POP_CK", "POP_CK_OFFSET", "1ST_POP_TIME", "TRAN_PREPARED_QUEUE_OFFSET", "DUP_INFO", "EXTEND_UNIQ_INFO",
    "INSTANCE_ID", "CORRELATION_ID", "REPLY_TO_CLIENT", "TTL", "ARRIVE_TIME", "PUSH_REPLY_TIME", "CLUSTER",
    "MSG_TYPE", "INNER_MULTI_QUEUE_OFFSET", "__SHARDINGKEY", "TRANSACTION_CHECK_TIMES",
    "CHECK_IMMUNITY_TIME_IN_SECONDS", "TIMER_DELIVER_MS", "TIMER_DELAY_SEC", "TIMER_DELAY_MS",
    "TIMER_DEL_UNIQKEY", "TIMER_OUT_MS", "TIMER_ENQUEUE_MS", "TIMER_DEQUEUE_MS", "TIMER_DELAY_LEVEL"};

}  // namespace

bool isSystemPropertyName(std::string_view name) {
  for (auto n : kSystemNames)
    if (n == name) return true;
  return false;
}

std::string md5Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_md5(), nullptr);
  return toHexUpper(digest, len);
}

std::optional<v2::Status> toStoredMessage(const v2::Message& m, MappedMessage& out) {
  const auto& sp = m.system_properties();
  for (const auto& [k, v] : m.user_properties()) {
    if (isSystemPropertyName(k))
      return makeStatus(v2::Code::ILLEGAL_MESSAGE_PROPERTY_KEY, "property key " + k + " is reserved by RocketMQ");
    setProperty(out.properties, k, v);
  }
  if (sp.has_tag()) {
    if (sp.tag().empty() || sp.tag().find('|') != std::string::npos)
      return makeStatus(v2::Code::ILLEGAL_MESSAGE_TAG, "tag '" + sp.tag() + "' is empty or holds '|'");
    setProperty(out.properties, prop::TAGS, sp.tag());
  }
  std::string keys;
  for (const auto& k : sp.keys()) {
    if (k.empty() || k.find(' ') != std::string::npos)
      return makeStatus(v2::Code::ILLEGAL_MESSAGE_KEY, "key '" + k + "' is empty or holds a space");
    if (!keys.empty()) keys += prop::KEY_SEPARATOR;
    keys += k;
  }
  if (!keys.empty()) setProperty(out.properties, prop::KEYS, keys);
  if (sp.message_id().empty()) return makeStatus(v2::Code::ILLEGAL_MESSAGE_ID, "message_id is empty");
  setProperty(out.properties, prop::UNIQ_KEY, sp.message_id());
  out.bornTimestamp = sp.has_born_timestamp() ? toMillis(sp.born_timestamp()) : 0;

  const auto type = sp.message_type();
  if (type == v2::MessageType::FIFO) {
    if (!sp.has_message_group() || sp.message_group().empty())
      return makeStatus(v2::Code::ILLEGAL_MESSAGE_GROUP, "a FIFO message needs a message_group");
    setProperty(out.properties, kShardingKey, sp.message_group());
  } else if (sp.has_message_group()) {
    return makeStatus(v2::Code::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, "message_group is for FIFO messages only");
  }
  if (type == v2::MessageType::DELAY) {
    if (!sp.has_delivery_timestamp())
      return makeStatus(v2::Code::ILLEGAL_DELIVERY_TIME, "a DELAY message needs a delivery_timestamp");
    setProperty(out.properties, prop::TIMER_DELIVER_MS, std::to_string(toMillis(sp.delivery_timestamp())));
  } else if (sp.has_delivery_timestamp()) {
    return makeStatus(v2::Code::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE, "delivery_timestamp is for DELAY messages only");
  }
  if (type == v2::MessageType::TRANSACTION) {
    setProperty(out.properties, prop::TRAN_MSG, "true");
    setProperty(out.properties, prop::PGROUP, m.topic().name());  // producers register under group = topic
    if (sp.has_orphaned_transaction_recovery_duration()) {
      setProperty(out.properties, prop::CHECK_IMMUNITY_TIME_IN_SECONDS,
                  std::to_string(sp.orphaned_transaction_recovery_duration().seconds()));
    }
    out.sysFlag = sysflag::TRANSACTION_PREPARED_TYPE;
  }
  return std::nullopt;
}

std::optional<v2::Status> gzipBodyToStored(std::string_view gzipped, size_t maxSize, std::string& out,
                                           int32_t& sysFlag) {
  auto plain = grpc::inflateMessage(gzipped, "gzip", maxSize);
  if (!plain) {
    return makeStatus(v2::Code::MESSAGE_CORRUPTED,
                      "the GZIP body does not inflate, or inflates over the limit " + std::to_string(maxSize));
  }
  if (plain->empty()) return makeStatus(v2::Code::MESSAGE_BODY_EMPTY, "message body is empty");
  out = zlibCompress(*plain);  // the level of a 4.x producer (compressLevel 5)
  if (out.size() < plain->size()) {
    sysFlag |= sysflag::COMPRESSED;  // no compression-type bits: 0 reads as zlib in 5.x too
  } else {
    out = std::move(*plain);  // it does not shrink: stored as it is
  }
  return std::nullopt;
}

v2::Message toV2Message(const MessageExt& m, v2::MessageType type) {
  v2::Message out;
  out.mutable_topic()->set_name(m.topic);
  out.set_body(m.body);
  auto* sp = out.mutable_system_properties();
  for (const auto& [k, v] : m.properties) {
    if (k == prop::TAGS) sp->set_tag(v);
    else if (k == prop::KEYS) {
      size_t start = 0;
      while (start <= v.size()) {
        size_t end = v.find(prop::KEY_SEPARATOR, start);
        if (end == std::string::npos) end = v.size();
        if (end > start) sp->add_keys(v.substr(start, end - start));
        start = end + 1;
      }
    } else if (k == kShardingKey) sp->set_message_group(v);
    else if (!isSystemPropertyName(k)) (*out.mutable_user_properties())[k] = v;
  }
  const std::string* uniq = m.property(prop::UNIQ_KEY);
  sp->set_message_id(uniq ? *uniq : m.offsetMsgId());
  sp->mutable_body_digest()->set_type(v2::DigestType::MD5);
  sp->mutable_body_digest()->set_checksum(md5Hex(m.body));
  sp->set_body_encoding(v2::Encoding::IDENTITY);
  sp->set_message_type(type);
  *sp->mutable_born_timestamp() = fromMillis<Timestamp>(m.bornTimestamp);
  sp->set_born_host(m.bornHost.ipString());
  *sp->mutable_store_timestamp() = fromMillis<Timestamp>(m.storeTimestamp);
  sp->set_store_host(m.storeHost.toString());
  sp->set_queue_id(m.queueId);
  sp->set_queue_offset(m.queueOffset);
  sp->set_delivery_attempt(m.reconsumeTimes + 1);
  return out;
}

}  // namespace rmq::broker::messaging

namespace rmq::broker::messaging {

v2::MessageType typeOf(const MessageExt& m) {
  if (const auto* tx = m.property(prop::TRAN_MSG); tx && *tx == "true") return v2::MessageType::TRANSACTION;
  if (m.property(kShardingKey)) return v2::MessageType::FIFO;
  if (m.property(prop::TIMER_DELIVER_MS) || m.property(prop::TIMER_DELAY_SEC) || m.property(prop::TIMER_DELAY_MS) ||
      m.property(prop::DELAY))
    return v2::MessageType::DELAY;
  return v2::MessageType::NORMAL;
}

std::optional<v2::Message> toDeliveredMessage(const Delivery& d) {
  auto m = decodeMessage(d.record, /*inflateBody=*/true);
  if (!m) return std::nullopt;
  v2::Message out = toV2Message(*m, typeOf(*m));
  auto* sp = out.mutable_system_properties();
  sp->set_receipt_handle(std::string(d.receiptHandle));
  sp->set_delivery_attempt(d.deliveryAttempt);
  sp->set_queue_id(d.queueId);
  sp->set_queue_offset(d.queueOffset);
  if (const auto* at = m->property(prop::TIMER_DELIVER_MS)) {
    char* end = nullptr;
    const long long ms = std::strtoll(at->c_str(), &end, 10);
    if (end && *end == '\0') *sp->mutable_delivery_timestamp() = fromMillis<Timestamp>(ms);
  }
  return out;
}

}  // namespace rmq::broker::messaging
