#pragma once
// Big-endian (Java ByteBuffer order) reads and writes: every RocketMQ wire and file format uses them.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace rmq {

inline uint16_t loadBE16(const void* p) { uint16_t v; std::memcpy(&v, p, 2); return __builtin_bswap16(v); }
inline uint32_t loadBE32(const void* p) { uint32_t v; std::memcpy(&v, p, 4); return __builtin_bswap32(v); }
inline uint64_t loadBE64(const void* p) { uint64_t v; std::memcpy(&v, p, 8); return __builtin_bswap64(v); }
inline void storeBE16(void* p, uint16_t v) { v = __builtin_bswap16(v); std::memcpy(p, &v, 2); }
inline void storeBE32(void* p, uint32_t v) { v = __builtin_bswap32(v); std::memcpy(p, &v, 4); }
inline void storeBE64(void* p, uint64_t v) { v = __builtin_bswap64(v); std::memcpy(p, &v, 8); }

// Appends big-endian values to a std::string used as a growable byte buffer.
inline void putBE16(std::string& out, uint16_t v) { char b[2]; storeBE16(b, v); out.append(b, 2); }
inline void putBE32(std::string& out, uint32_t v) { char b[4]; storeBE32(b, v); out.append(b, 4); }
inline void putBE64(std::string& out, uint64_t v) { char b[8]; storeBE64(b, v); out.append(b, 8); }

// Bounds-checked sequential reader; any short read sets ok() false and returns zeros.
class ByteReader {
 public:
  ByteReader(const void* data, size_t size) : p_(static_cast<const char*>(data)), n_(size) {}
  explicit ByteReader(std::string_view s) : ByteReader(s.data(), s.size()) {}
  bool ok() const { return ok_; }
  size_t remaining() const { return n_ - pos_; }
  size_t position() const { return pos_; }
  uint8_t u8() { return need(1) ? static_cast<uint8_t>(p_[pos_++]) : 0; }
  uint16_t u16() { if (!need(2)) return 0; auto v = loadBE16(p_ + pos_); pos_ += 2; return v; }
  uint32_t u32() { if (!need(4)) return 0; auto v = loadBE32(p_ + pos_); pos_ += 4; return v; }
  uint64_t u64() { if (!need(8)) return 0; auto v = loadBE64(p_ + pos_); pos_ += 8; return v; }
  int16_t i16() { return static_cast<int16_t>(u16()); }
  int32_t i32() { return static_cast<int32_t>(u32()); }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  std::string_view bytes(size_t n) {
    if (!need(n)) return {};
    std::string_view v(p_ + pos_, n); pos_ += n; return v;
  }
  void skip(size_t n) { if (need(n)) pos_ += n; }

 private:
  bool need(size_t n) { if (!ok_ || n_ - pos_ < n) { ok_ = false; return false; } return true; }
  const char* p_;
  size_t n_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace rmq
