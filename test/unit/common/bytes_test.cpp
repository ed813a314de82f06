#include <doctest/doctest.h>

#include "common/bytes.h"

TEST_CASE("big-endian helpers round trip and bounds-check") {
  std::string buf;
  rmq::putBE16(buf, 0x1234);
  rmq::putBE32(buf, 0xDEADBEEF);
  rmq::putBE64(buf, 0x0102030405060708ULL);
  CHECK(static_cast<uint8_t>(buf[0]) == 0x12);
  CHECK(static_cast<uint8_t>(buf[2]) == 0xDE);
  rmq::ByteReader r(buf);
  CHECK(r.u16() == 0x1234);
  CHECK(r.u32() == 0xDEADBEEF);
  CHECK(r.u64() == 0x0102030405060708ULL);
  CHECK(r.ok());
  CHECK(r.u8() == 0);
  CHECK_FALSE(r.ok());
}
