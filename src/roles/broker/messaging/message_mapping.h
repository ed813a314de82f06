#pragma once
// A 5.x message (apache.rocketmq.v2.Message) <-> the 4.x message a RocketMQ broker stores, so that
// both generations read each other's messages (as the 5.x proxy maps them):
//   message_id -> UNIQ_KEY, keys -> KEYS (space-joined), tag -> TAGS, message_group -> __SHARDINGKEY,
//   delivery_timestamp -> TIMER_DELIVER_MS (the timer path, common/timer_properties.h),
//   TRANSACTION -> TRAN_MSG=true + PGROUP=<topic> (+ CHECK_IMMUNITY_TIME_IN_SECONDS from
//   orphaned_transaction_recovery_duration), user properties as they are (a system name refused).
#include <string>
#include <optional>
#include <string_view>

#include "apache/rocketmq/v2/definition.pb.h"
#include "common/message.h"
#include "roles/broker/messaging/v2_status.h"

namespace rmq::broker::messaging {

inline constexpr std::string_view kShardingKey = "__SHARDINGKEY";  // MessageConst.PROPERTY_SHARDING_KEY

// True for names RocketMQ reserves for itself (MessageConst's system set, the timer properties).
bool isSystemPropertyName(std::string_view name);

struct MappedMessage {
  Properties properties;
  int32_t sysFlag = 0;
  int64_t bornTimestamp = 0;
};
// Fills `out` from `m`; an error status (BAD_REQUEST family) when the message cannot be stored.
std::optional<v2::Status> toStoredMessage(const v2::Message& m, MappedMessage& out);

// A GZIP body (SystemProperties.body_encoding): the 5.x proxy stores the gzip bytes with
// COMPRESSED, which a 4.x consumer cannot read (it zlib-inflates: Java's Inflater, ali-ons, ours).
// So the body is inflated (at most `maxSize` bytes: MESSAGE_CORRUPTED otherwise) and stored as a
// 4.x producer stores a big body: zlib with COMPRESSED added to `sysFlag` (or plain when zlib does
// not make it smaller). 4.x consumers inflate it; ReceiveMessage hands it out inflated (IDENTITY).
std::optional<v2::Status> gzipBodyToStored(std::string_view gzipped, size_t maxSize, std::string& out,
                                           int32_t& sysFlag);

// A stored message as a 5.x client reads it (RecoverOrphanedTransactionCommand; delivery later):
// system fields from the record and its properties, the rest as user properties, MD5 body digest.
v2::Message toV2Message(const MessageExt& m, v2::MessageType type);

std::string md5Hex(std::string_view data);

// The 5.x type a stored message reads as (the proxy's rule): TRAN_MSG -> TRANSACTION, a sharding
// key -> FIFO, a timer / delay level property -> DELAY, else NORMAL.
v2::MessageType typeOf(const MessageExt& m);

// A popped record (pop_service.h PoppedMessage's fields) as ReceiveMessage hands it out: the
// record decoded with a zlib body inflated (4.x producers compress; the 5.x clients only gunzip),
// then toV2Message plus receipt_handle, delivery_attempt, queue id / offset. nullopt when the
// record does not decode.
struct Delivery {
  std::string_view record;
  std::string_view receiptHandle;
  int32_t deliveryAttempt = 1;
  int32_t queueId = 0;
  int64_t queueOffset = 0;
};
std::optional<v2::Message> toDeliveredMessage(const Delivery& d);

}  // namespace rmq::broker::messaging
