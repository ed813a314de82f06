// crc32Masked, javaStringHash, javaStringLength, zlib helpers (declared in message_codec.h).
#include <immintrin.h>
#include <zlib.h>

#include "common/message_codec.h"
#include "common/response_code.h"

namespace rmq {

namespace {
// CRC-32 (IEEE, reflected) of len bytes (len >= 64, a multiple of 16) by carry-less multiply
// folding (Intel, "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ"; the bit-reflected
// constants k1..k5, P' and mu' are those of that paper for 0x04C11DB7). `crc` and the result are
// in the pre/post-inverted domain (callers invert). Recovery validates every body with it.
#define RMQ_CLMUL __attribute__((target("pclmul,sse4.1")))
RMQ_CLMUL inline __m128i load16(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
// acc * (k_hi, k_lo) folded onto `next`.
RMQ_CLMUL inline __m128i fold16(__m128i acc, __m128i k, __m128i next) {
  __m128i lo = _mm_clmulepi64_si128(acc, k, 0x00);
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(acc, k, 0x11), next), lo);
}

RMQ_CLMUL uint32_t crc32Fold(const uint8_t* buf, size_t len, uint32_t crc) {
  alignas(16) static const uint64_t k1k2[] = {0x0154442bd4, 0x01c6e41596};
  alignas(16) static const uint64_t k3k4[] = {0x01751997d0, 0x00ccaa009e};
  alignas(16) static const uint64_t k5k0[] = {0x0163cd6124, 0x0000000000};
  alignas(16) static const uint64_t poly[] = {0x01db710641, 0x01f7011641};
  __m128i x1 = load16(buf), x2 = load16(buf + 16), x3 = load16(buf + 32), x4 = load16(buf + 48);
  x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128(static_cast<int>(crc)));
  __m128i x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(k1k2));
  buf += 64;
  len -= 64;
  while (len >= 64) {  // four lanes of 16 bytes folded in parallel
    x1 = fold16(x1, x0, load16(buf));
    x2 = fold16(x2, x0, load16(buf + 16));
    x3 = fold16(x3, x0, load16(buf + 32));
    x4 = fold16(x4, x0, load16(buf + 48));
    buf += 64;
    len -= 64;
  }
  x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(k3k4));
  x1 = fold16(x1, x0, x2);
  x1 = fold16(x1, x0, x3);
  x1 = fold16(x1, x0, x4);
  while (len >= 16) {
    x1 = fold16(x1, x0, load16(buf));
    buf += 16;
    len -= 16;
  }
  // 128 -> 64 bits.
  x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
  x3 = _mm_setr_epi32(~0, 0, ~0, 0);
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
  x0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(k5k0));
  x2 = _mm_srli_si128(x1, 4);
  x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, x3), x0, 0x00), x2);
  // Barrett reduction to 32 bits.
  x0 = _mm_load_si128(reinterpret_cast<const __m128i*>(poly));
  x2 = _mm_clmulepi64_si128(_mm_and_si128(x1, x3), x0, 0x10);
  x2 = _mm_clmulepi64_si128(_mm_and_si128(x2, x3), x0, 0x00);
  x1 = _mm_xor_si128(x1, x2);
  return static_cast<uint32_t>(_mm_extract_epi32(x1, 1));
}

bool haveClmul() {
  static const bool ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return ok;
}
}  // namespace

uint32_t crc32Ieee(std::string_view bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t left = bytes.size();
  uLong c = crc32(0L, Z_NULL, 0);
  if (left >= 64 && haveClmul()) {
    size_t chunk = left & ~size_t{15};
    c = ~crc32Fold(p, chunk, ~static_cast<uint32_t>(c)) & 0xFFFFFFFFu;
    p += chunk;
    left -= chunk;
  }
  // zlib takes uInt lengths; feed in chunks so multi-GiB inputs are fine.
  while (left > 0) {
    uInt n = left > (1u << 30) ? (1u << 30) : static_cast<uInt>(left);
    c = crc32(c, p, n);
    p += n;
    left -= n;
  }
  return static_cast<uint32_t>(c);
}

int32_t crc32Masked(std::string_view bytes) {
  return static_cast<int32_t>(crc32Ieee(bytes) & 0x7FFFFFFF);
}

int32_t crc32MaskedZlib(std::string_view bytes) {
  uLong c = crc32(0L, Z_NULL, 0);
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
