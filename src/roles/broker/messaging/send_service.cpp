#include "roles/broker/messaging/send_service.h"

#include <algorithm>
#include <chrono>

#include "common/log.h"
#include "common/message_codec.h"
#include "common/response_code.h"
#include "common/timer_properties.h"
#include "common/wall_clock.h"
#include "coord/base64.h"
#include "roles/broker/messaging/message_mapping.h"
#include "roles/broker/messaging/proto_time.h"
#include "roles/broker/messaging/route_service.h"
#include "roles/broker/metadata/topic_config.h"

namespace rmq::broker::messaging {

namespace {

std::string_view typeName(v2::MessageType t) {
  switch (t) {
    case v2::MessageType::NORMAL: return "NORMAL";
    case v2::MessageType::FIFO: return "FIFO";
    case v2::MessageType::DELAY: return "DELAY";
    case v2::MessageType::TRANSACTION: return "TRANSACTION";
    default: return "UNSPECIFIED";
  }
}

v2::SendResultEntry failed(v2::Status status) {
  v2::SendResultEntry e;
  *e.mutable_status() = std::move(status);
  return e;
}

HostAddress bornHostOf(const std::string& peer) {
  HostAddress h;
  if (!HostAddress::parse(peer, h)) h = HostAddress::ipv4(0x7F000001, 0);
  return h;
}

std::string toBase64Url(std::string s) {
  for (char& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return s;
}

// RocketMQ's RecallMessageProcessor marker: tag and body of the delete marker.
constexpr std::string_view kRecallTag = "_RECALL_TAG_";

}  // namespace

int32_t consistentHash(int64_t input, int32_t buckets) {
  // Guava's LinearCongruentialGenerator walk (Lamping & Veach "jump" style, as Guava codes it).
  uint64_t state = static_cast<uint64_t>(input);
  int32_t candidate = 0;
  for (;;) {
    state = 2862933555777941757ULL * state + 1;
    double next = static_cast<double>(static_cast<int32_t>(state >> 33) + 1) / 2147483648.0;
    auto jump = static_cast<int64_t>((candidate + 1) / next);
    if (jump >= 0 && jump < buckets) candidate = static_cast<int32_t>(jump);
    else return candidate;
  }
}

std::string buildRecallHandle(std::string_view topic, std::string_view brokerName, int64_t deliverMs,
                              std::string_view messageId) {
  std::string raw = "v1 " + std::string(topic) + " " + std::string(brokerName) + " " + std::to_string(deliverMs) +
                    " " + std::string(messageId);
  return toBase64Url(coord::base64Encode(raw));
}

std::optional<RecallHandle> parseRecallHandle(std::string_view handle) {
  std::string text(handle);
  for (char& c : text) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (text.size() % 4 != 0) text += '=';
  auto raw = coord::base64Decode(text);
  if (!raw) return std::nullopt;
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= raw->size()) {
    size_t end = raw->find(' ', start);
    if (end == std::string::npos) end = raw->size();
    items.push_back(raw->substr(start, end - start));
    start = end + 1;
  }
  if (items.size() < 5 || items[0] != "v1") return std::nullopt;
  RecallHandle h{items[1], items[2], items[4], 0};
  try {
    h.deliverMs = std::stoll(items[3]);
  } catch (...) {
    return std::nullopt;
  }
  return h;
}

std::optional<v2::Status> SendService::checkType(const v2::Message& m, int32_t& writeQueues) const {
  const std::string& topic = m.topic().name();
  auto local = deps_.localTopic(topic);
  writeQueues = local ? local->writeQueueNums : 0;
  if (topics::isRetryTopic(topic) || topics::isDlqTopic(topic)) return std::nullopt;
  // A topic this broker does not have yet is what the put path's auto-creation would make of it:
  // a topic without message.type, i.e. NORMAL (without auto-creation the put refuses it anyway).
  const std::string declared = local ? local->messageType : std::string();
  auto accepted = acceptedTypes(declared);
  auto actual = m.system_properties().message_type();
  if (std::find(accepted.begin(), accepted.end(), actual) != accepted.end()) return std::nullopt;
  std::string expected = declared.empty() ? "NORMAL" : declared;
  return makeStatus(v2::Code::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE,
                    "TopicMessageType validate failed, the expected type is " + expected + ", but actual type is " +
                        std::string(typeName(actual)));
}

asio::awaitable<v2::SendResultEntry> SendService::sendOne(const v2::Message& m, const HostAddress& born) {
  const std::string& topic = m.topic().name();
  if (topic.empty()) co_return failed(makeStatus(v2::Code::ILLEGAL_TOPIC, "topic name is empty"));
  const int32_t maxSize = deps_.maxMessageSize();
  if (m.body().empty()) co_return failed(makeStatus(v2::Code::MESSAGE_BODY_EMPTY, "message body is empty"));
  if (static_cast<int64_t>(m.body().size()) > maxSize) {
    co_return failed(makeStatus(v2::Code::MESSAGE_BODY_TOO_LARGE, "message body size " + std::to_string(m.body().size()) +
                                                                      " exceeds the limit " + std::to_string(maxSize)));
  }
  int32_t writeQueues = 0;
  if (auto bad = checkType(m, writeQueues)) co_return failed(std::move(*bad));
  MappedMessage mapped;
  if (auto bad = toStoredMessage(m, mapped)) co_return failed(std::move(*bad));
  std::string_view body = m.body();  // m outlives the put: no body copy
  std::string rewritten;             // a GZIP body as stored (zlib)
  if (m.system_properties().body_encoding() == v2::Encoding::GZIP) {
    if (auto bad = gzipBodyToStored(body, static_cast<size_t>(maxSize), rewritten, mapped.sysFlag))
      co_return failed(std::move(*bad));
    body = rewritten;
  }

  SendHeader h;
  h.producerGroup = topic;
  h.topic = topic;
  h.defaultTopic = std::string(topics::AUTO_CREATE_TOPIC_KEY);
  h.sysFlag = mapped.sysFlag;
  h.bornTimestamp = mapped.bornTimestamp > 0 ? mapped.bornTimestamp : nowMillis();
  h.properties = encodeProperties(mapped.properties);
  const auto& sp = m.system_properties();
  if (sp.message_type() == v2::MessageType::FIFO && writeQueues > 0)
    h.queueId = consistentHash(javaStringHash(sp.message_group()), writeQueues);
  auto out = co_await deps_.put(std::move(h), body, born);

  v2::SendResultEntry e;
  *e.mutable_status() = out.code == ResponseCode::SUCCESS ? okStatus() : makeStatus(codeOfResponse(out.code), out.remark);
  if (out.msgId.empty()) co_return e;  // nothing stored
  e.set_message_id(sp.message_id());
  e.set_transaction_id(sp.message_id());
  e.set_offset(out.queueOffset);
  if (sp.message_type() == v2::MessageType::TRANSACTION)
    txs_.remember(sp.message_id(), HalfMessageRef{topic, out.physicalOffset, out.queueOffset});
  if (sp.message_type() == v2::MessageType::DELAY) {
    e.set_recall_handle(buildRecallHandle(topic, deps_.brokerName, toMillis(sp.delivery_timestamp()), sp.message_id()));
  }
  co_return e;
}

asio::awaitable<void> SendService::send(const v2::SendMessageRequest& req, std::string peer,
                                        v2::SendMessageResponse& resp) {
  if (req.messages_size() == 0) {
    *resp.mutable_status() = makeStatus(v2::Code::BAD_REQUEST, "no message to send");
    co_return;
  }
  const HostAddress born = bornHostOf(peer);
  for (const auto& m : req.messages()) {
    auto entry = co_await sendOne(m, born);
    *resp.add_entries() = std::move(entry);
  }
  const auto& first = resp.entries(0).status();
  bool same = std::all_of(resp.entries().begin(), resp.entries().end(),
                          [&](const v2::SendResultEntry& e) { return e.status().code() == first.code(); });
  *resp.mutable_status() = same ? first : makeStatus(v2::Code::MULTIPLE_RESULTS, "the messages had different outcomes");
}

asio::awaitable<void> SendService::recall(const v2::RecallMessageRequest& req, std::string peer,
                                          v2::RecallMessageResponse& resp) {
  auto handle = parseRecallHandle(req.recall_handle());
  if (!handle) {
    *resp.mutable_status() = makeStatus(v2::Code::BAD_REQUEST, "recall handle is invalid");
    co_return;
  }
  if (handle->topic != req.topic().name() || handle->brokerName != deps_.brokerName) {
    *resp.mutable_status() = makeStatus(v2::Code::BAD_REQUEST, handle->topic != req.topic().name()
                                                                   ? "recall failed, topic not match"
                                                                   : "recall failed, the handle is of broker " +
                                                                         handle->brokerName);
    co_return;
  }
  if (handle->deliverMs <= nowMillis()) {
    *resp.mutable_status() = makeStatus(v2::Code::BAD_REQUEST, "recall failed, timestamp invalid");
    co_return;
  }
  // A delete marker parked at the message's delivery time (timer_message_service.h): both leave
  // the timer in the same millisecond and the marker cancels the message.
  Properties p;
  setProperty(p, prop::TAGS, kRecallTag);
  setProperty(p, prop::TIMER_DEL_UNIQKEY, handle->topic + "+" + handle->messageId);
  setProperty(p, prop::UNIQ_KEY, handle->messageId);
  setProperty(p, prop::TIMER_DELIVER_MS, std::to_string(handle->deliverMs));
  SendHeader h;
  h.producerGroup = handle->topic;
  h.topic = handle->topic;
  h.defaultTopic = std::string(topics::AUTO_CREATE_TOPIC_KEY);
  h.queueId = 0;
  h.bornTimestamp = nowMillis();
  h.properties = encodeProperties(p);
  const std::string_view body = "0";  // the marker's body, as RocketMQ's RecallMessageProcessor
  HostAddress born = bornHostOf(peer);
  auto out = co_await deps_.put(std::move(h), body, born);
  if (out.msgId.empty()) {
    *resp.mutable_status() = makeStatus(codeOfResponse(out.code), "recall failed: " + out.remark);
    co_return;
  }
  *resp.mutable_status() = okStatus();
  resp.set_message_id(handle->messageId);
}

}  // namespace rmq::broker::messaging
