#pragma once
// Message model shared by the store, the broker and the client (PROTOCOL.md §4).
// Message = what a producer sends; MessageExt = a stored record with every CommitLog field.
// Properties keep insertion order (a vector of pairs): order is irrelevant to Java readers, and a
// vector keeps re-encoding byte-stable and cheap. Strings the broker stores are written in Java's
// HashMap order through JavaStringMap (common/java_string_map.h), as Java 4.9.8 writes them.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rmq {

// Property names (Java MessageConst).
namespace prop {
inline constexpr std::string_view KEYS = "KEYS";
inline constexpr std::string_view TAGS = "TAGS";
inline constexpr std::string_view WAIT = "WAIT";
inline constexpr std::string_view DELAY = "DELAY";
inline constexpr std::string_view RETRY_TOPIC = "RETRY_TOPIC";
inline constexpr std::string_view REAL_TOPIC = "REAL_TOPIC";
inline constexpr std::string_view REAL_QID = "REAL_QID";
inline constexpr std::string_view TRAN_MSG = "TRAN_MSG";
inline constexpr std::string_view PGROUP = "PGROUP";
inline constexpr std::string_view MIN_OFFSET = "MIN_OFFSET";
inline constexpr std::string_view MAX_OFFSET = "MAX_OFFSET";
inline constexpr std::string_view BUYER_ID = "BUYER_ID";
inline constexpr std::string_view ORIGIN_MESSAGE_ID = "ORIGIN_MESSAGE_ID";
inline constexpr std::string_view TRANSFER_FLAG = "TRANSFER_FLAG";
inline constexpr std::string_view CORRECTION_FLAG = "CORRECTION_FLAG";
inline constexpr std::string_view MQ2_FLAG = "MQ2_FLAG";
inline constexpr std::string_view RECONSUME_TIME = "RECONSUME_TIME";
inline constexpr std::string_view MSG_REGION = "MSG_REGION";
inline constexpr std::string_view TRACE_ON = "TRACE_ON";
inline constexpr std::string_view UNIQ_KEY = "UNIQ_KEY";
inline constexpr std::string_view MAX_RECONSUME_TIMES = "MAX_RECONSUME_TIMES";
inline constexpr std::string_view CONSUME_START_TIME = "CONSUME_START_TIME";
inline constexpr std::string_view TRAN_PREPARED_QUEUE_OFFSET = "TRAN_PREPARED_QUEUE_OFFSET";
inline constexpr std::string_view TRANSACTION_CHECK_TIMES = "TRANSACTION_CHECK_TIMES";
inline constexpr std::string_view CHECK_IMMUNITY_TIME_IN_SECONDS = "CHECK_IMMUNITY_TIME_IN_SECONDS";
inline constexpr std::string_view INSTANCE_ID = "INSTANCE_ID";
inline constexpr std::string_view CORRELATION_ID = "CORRELATION_ID";
inline constexpr std::string_view REPLY_TO_CLIENT = "REPLY_TO_CLIENT";
inline constexpr std::string_view TTL = "TTL";
inline constexpr std::string_view ARRIVE_TIME = "ARRIVE_TIME";
inline constexpr std::string_view PUSH_REPLY_TIME = "PUSH_REPLY_TIME";
inline constexpr std::string_view MSG_TYPE = "MSG_TYPE";
inline constexpr std::string_view CLUSTER = "CLUSTER";
inline constexpr std::string_view TRANSACTION_ID = "__transactionId__";
inline constexpr char NAME_VALUE_SEPARATOR = '\x01';
inline constexpr char PROPERTY_SEPARATOR = '\x02';
inline constexpr char KEY_SEPARATOR = ' ';
}  // namespace prop

// MessageSysFlag bits (§4.2).
namespace sysflag {
inline constexpr int32_t COMPRESSED = 0x1;
inline constexpr int32_t MULTI_TAGS = 0x2;
inline constexpr int32_t TRANSACTION_MASK = 0xC;
inline constexpr int32_t TRANSACTION_NOT_TYPE = 0x0;
inline constexpr int32_t TRANSACTION_PREPARED_TYPE = 0x4;
inline constexpr int32_t TRANSACTION_COMMIT_TYPE = 0x8;
inline constexpr int32_t TRANSACTION_ROLLBACK_TYPE = 0xC;
inline constexpr int32_t BORNHOST_V6 = 0x10;
inline constexpr int32_t STOREHOST_V6 = 0x20;
inline constexpr int32_t COMPRESSION_TYPE_MASK = 0x700;
inline constexpr int32_t COMPRESSION_ZLIB = 0x300;
inline int32_t transactionType(int32_t f) { return f & TRANSACTION_MASK; }
inline int32_t resetTransaction(int32_t f, int32_t type) { return (f & ~TRANSACTION_MASK) | type; }
}  // namespace sysflag

inline constexpr int32_t kMessageMagicV1 = static_cast<int32_t>(0xDAA320A7);
inline constexpr int32_t kMessageMagicV2 = static_cast<int32_t>(0xDAA320AB);
inline constexpr int32_t kBlankMagic = static_cast<int32_t>(0xCBD43194);

// An IPv4 or IPv6 socket address as stored in records and message ids (address bytes in network
// order; IPv4 uses the first 4 bytes of `ip`).
struct HostAddress {
  std::array<uint8_t, 16> ip{};
  bool v6 = false;
  int32_t port = 0;

  size_t ipLength() const { return v6 ? 16 : 4; }
  size_t encodedSize() const { return ipLength() + 4; }  // address + int port
  std::string ipString() const;
  std::string toString() const;  // "1.2.3.4:10911" / "[::1]:10911"
  // Parses "a.b.c.d:port", "[v6]:port" or "a.b.c.d" (port 0). False on malformed input.
  static bool parse(std::string_view text, HostAddress& out);
  static HostAddress ipv4(uint32_t hostOrderIp, int32_t port);
  bool operator==(const HostAddress&) const = default;
};

using Properties = std::vector<std::pair<std::string, std::string>>;

// Lookup helpers over an ordered property list. Decoded lists keep duplicated names in order (so
// re-encoding is byte-exact); the last occurrence is the effective value, as in Java.
const std::string* findProperty(const Properties& p, std::string_view name);
void setProperty(Properties& p, std::string_view name, std::string_view value);  // replaces or appends
bool eraseProperty(Properties& p, std::string_view name);

struct Message {
  std::string topic;
  int32_t flag = 0;
  Properties properties;
  std::string body;

  const std::string* property(std::string_view name) const { return findProperty(properties, name); }
  void putProperty(std::string_view name, std::string_view value) { setProperty(properties, name, value); }
  bool removeProperty(std::string_view name) { return eraseProperty(properties, name); }
  std::string tags() const { auto* t = property(prop::TAGS); return t ? *t : std::string(); }
  std::string keys() const { auto* k = property(prop::KEYS); return k ? *k : std::string(); }
};

struct MessageExt : Message {
  int32_t queueId = 0;
  int32_t storeSize = 0;
  int64_t queueOffset = 0;
  int32_t sysFlag = 0;
  int64_t bornTimestamp = 0;
  HostAddress bornHost;
  int64_t storeTimestamp = 0;
  HostAddress storeHost;
  int64_t commitLogOffset = 0;
  int32_t bodyCRC = 0;
  int32_t reconsumeTimes = 0;
  int64_t preparedTransactionOffset = 0;

  std::string offsetMsgId() const;  // §5.1, from storeHost + commitLogOffset
};

}  // namespace rmq
