#pragma once
// Message ids (PROTOCOL.md §5): the offset msgId (store host + commit log offset) and the
// client UNIQ_KEY. Hex is upper-case, as Java UtilAll.bytes2string writes it.
#include <mutex>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/message.h"

namespace rmq {

std::string toHexUpper(const void* data, size_t n);
// Accepts upper or lower case; false on odd length or a non-hex character.
bool fromHex(std::string_view hex, std::string& out);

struct OffsetMsgId {
  HostAddress storeHost;
  int64_t commitLogOffset = 0;
};
// 32 hex chars for an IPv4 store host, 56 for IPv6.
std::string createOffsetMsgId(const HostAddress& storeHost, int64_t commitLogOffset);
// Writes the id into dst (32 or 56 chars, no terminator); returns the length. Allocation-free.
size_t writeOffsetMsgId(const HostAddress& storeHost, int64_t commitLogOffset, char* dst);
// Java decodeMessageId: length 32 → IPv4, otherwise IPv6 (must be 56). nullopt when malformed.
std::optional<OffsetMsgId> parseOffsetMsgId(std::string_view id);

// UNIQ_KEY generator (§5.2): ip | pid low 16 bits | class-loader-like hash | ms since month start |
// counter. Thread-safe; one per process is enough.
class UniqIdGenerator {
 public:
  explicit UniqIdGenerator(const HostAddress& ip);  // ip: the client's address (port ignored)
  UniqIdGenerator();                                // uses 127.0.0.1 (callers pass the real IP)
  std::string next();

 private:
  std::mutex mu_;
  std::string prefixHex_;       // ip | pid | hash, already hex
  int64_t monthStartMs_ = 0;    // local-time start of the current month
  int64_t nextMonthStartMs_ = 0;
  uint16_t counter_ = 0;
  void refreshMonth(int64_t nowMs);
};

// Approximate store time recovered from a UNIQ_KEY (Java getNearlyTimeFromID); 0 when malformed.
int64_t uniqIdNearlyTime(std::string_view uniqId);

}  // namespace rmq
