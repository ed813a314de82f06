#include "common/message_id.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <cstring>
#include <random>

#include "common/bytes.h"
#include "common/wall_clock.h"

namespace rmq {

std::string toHexUpper(const void* data, size_t n) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out(n * 2, '\0');
  auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[p[i] >> 4];
    out[2 * i + 1] = kDigits[p[i] & 0xF];
  }
  return out;
}

namespace {
int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
// Local-time start of the month containing `ms`, shifted by `monthDelta` months.
int64_t monthStart(int64_t ms, int monthDelta) {
  time_t secs = static_cast<time_t>(ms / 1000);
  struct tm t {};
  localtime_r(&secs, &t);
  t.tm_mday = 1;
  t.tm_hour = t.tm_min = t.tm_sec = 0;
  t.tm_mon += monthDelta;
  t.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&t)) * 1000;
}
}  // namespace

bool fromHex(std::string_view hex, std::string& out) {
  if (hex.size() % 2) return false;
  std::string bytes(hex.size() / 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    int hi = hexValue(hex[2 * i]), lo = hexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    bytes[i] = static_cast<char>(hi << 4 | lo);
  }
  out = std::move(bytes);
  return true;
}

size_t writeOffsetMsgId(const HostAddress& h, int64_t offset, char* dst) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  uint8_t raw[28];
  size_t n = h.ipLength();
  std::memcpy(raw, h.ip.data(), n);
  storeBE32(raw + n, static_cast<uint32_t>(h.port));
  storeBE64(raw + n + 4, static_cast<uint64_t>(offset));
  n += 12;
  for (size_t i = 0; i < n; ++i) {
    dst[2 * i] = kDigits[raw[i] >> 4];
    dst[2 * i + 1] = kDigits[raw[i] & 0xF];
  }
  return n * 2;
}

std::string createOffsetMsgId(const HostAddress& h, int64_t offset) {
  char buf[56];
  return std::string(buf, writeOffsetMsgId(h, offset, buf));
}

std::optional<OffsetMsgId> parseOffsetMsgId(std::string_view id) {
  if (id.size() != 32 && id.size() != 56) return std::nullopt;
  std::string raw;
  if (!fromHex(id, raw)) return std::nullopt;
  OffsetMsgId out;
  out.storeHost.v6 = id.size() == 56;
  size_t n = out.storeHost.ipLength();
  std::memcpy(out.storeHost.ip.data(), raw.data(), n);
  out.storeHost.port = static_cast<int32_t>(loadBE32(raw.data() + n));
  out.commitLogOffset = static_cast<int64_t>(loadBE64(raw.data() + n + 4));
  return out;
}

UniqIdGenerator::UniqIdGenerator() : UniqIdGenerator(HostAddress::ipv4(0x7F000001, 0)) {}

UniqIdGenerator::UniqIdGenerator(const HostAddress& ip) {
  std::string prefix(reinterpret_cast<const char*>(ip.ip.data()), ip.ipLength());
  putBE16(prefix, static_cast<uint16_t>(getpid()));
  putBE32(prefix, static_cast<uint32_t>(std::random_device{}()));  // stands in for ClassLoader.hashCode()
  prefixHex_ = toHexUpper(prefix.data(), prefix.size());
  counter_ = static_cast<uint16_t>(std::random_device{}());
}

void UniqIdGenerator::refreshMonth(int64_t now) {
  monthStartMs_ = monthStart(now, 0);
  nextMonthStartMs_ = monthStart(now, 1);
}

std::string UniqIdGenerator::next() {
  int64_t now = nowMillis();
  uint8_t tail[6];
  {
    std::lock_guard lock(mu_);
    if (now >= nextMonthStartMs_ || now < monthStartMs_) refreshMonth(now);
    storeBE32(tail, static_cast<uint32_t>(now - monthStartMs_));
    storeBE16(tail + 4, counter_++);
  }
  return prefixHex_ + toHexUpper(tail, sizeof tail);
}

int64_t uniqIdNearlyTime(std::string_view uniqId) {
  std::string raw;
  if ((uniqId.size() != 32 && uniqId.size() != 56) || !fromHex(uniqId, raw)) return 0;
  size_t ipLen = uniqId.size() == 32 ? 4 : 16;
  // Read unsigned: late in a 31-day month the span exceeds 2^31 ms (Java would wrap negative).
  int64_t span = loadBE32(raw.data() + ipLen + 2 + 4);
  int64_t now = nowMillis();
  int64_t start = monthStart(now, 0);
  if (start + span > now) start = monthStart(now, -1);  // in the future: generated last month
  return start + span;
}

}  // namespace rmq
