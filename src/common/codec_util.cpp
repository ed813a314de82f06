// crc32Masked, javaStringHash, javaStringLength, zlib helpers (declared in message_codec.h).
#include <zlib.h>

#include "common/message_codec.h"
#include "common/response_code.h"

namespace rmq {

int32_t crc32Masked(std::string_view bytes) {
  uLong c = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; feed in chunks so multi-GiB inputs are fine.
  const auto* p = reinterpret_cast<const Bytef*>(bytes.data());
  size_t left = bytes.size();
  while (left > 0) {
    uInt n = left > (1u << 30) ? (1u << 30) : static_cast<uInt>(left);
    c = crc32(c, p, n);
    p += n;
    left -= n;
  }
  return static_cast<int32_t>(c & 0x7FFFFFFF);
}

namespace {
// Decodes one UTF-8 code point at s[i]; malformed input yields U+FFFD and consumes one byte.
uint32_t nextCodePoint(std::string_view s, size_t& i) {
  auto b = static_cast<uint8_t>(s[i]);
  if (b < 0x80) { ++i; return b; }
  int len = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
  if (len == 0 || i + len > s.size()) { ++i; return 0xFFFD; }
  uint32_t cp = b & (0x7F >> len);
  for (int k = 1; k < len; ++k) {
    auto c = static_cast<uint8_t>(s[i + k]);
    if ((c & 0xC0) != 0x80) { ++i; return 0xFFFD; }
    cp = (cp << 6) | (c & 0x3F);
  }
  i += len;
  return cp;
}
}  // namespace

int32_t javaStringHash(std::string_view utf8) {
  uint32_t h = 0;
  size_t i = 0;
  while (i < utf8.size()) {
    uint32_t cp = nextCodePoint(utf8, i);
    if (cp >= 0x10000) {
      cp -= 0x10000;
      h = 31 * h + (0xD800 + (cp >> 10));
      h = 31 * h + (0xDC00 + (cp & 0x3FF));
    } else {
      h = 31 * h + cp;
    }
  }
  return static_cast<int32_t>(h);
}

size_t javaStringLength(std::string_view utf8) {
  size_t n = 0, i = 0;
  while (i < utf8.size()) n += nextCodePoint(utf8, i) >= 0x10000 ? 2 : 1;
  return n;
}

std::string zlibCompress(std::string_view data, int level) {
  uLongf cap = compressBound(static_cast<uLong>(data.size()));
  std::string out(cap, '\0');
  compress2(reinterpret_cast<Bytef*>(out.data()), &cap, reinterpret_cast<const Bytef*>(data.data()),
            static_cast<uLong>(data.size()), level);
  out.resize(cap);
  return out;
}

Result<std::string> zlibInflate(std::string_view data, size_t maxOutput) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) return makeError(ResponseCode::SYSTEM_ERROR, "inflateInit failed");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buf[16384];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(buf, sizeof buf - zs.avail_out);
    if (out.size() > maxOutput) { rc = Z_MEM_ERROR; break; }
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) { rc = Z_DATA_ERROR; break; }
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return makeError(ResponseCode::SYSTEM_ERROR, "zlib inflate failed: corrupt or truncated data");
  return out;
}

}  // namespace rmq
