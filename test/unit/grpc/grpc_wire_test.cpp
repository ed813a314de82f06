// gRPC's wire rules (src/grpc/grpc_wire.h) on their own: grpc-timeout values (the fuzz finding:
// "99999999H" overflowed int64 nanoseconds), grpc-message percent-encoding, and the message
// framing split anywhere across DATA frames.
#include <doctest/doctest.h>

#include <vector>

#include "grpc/grpc_wire.h"

using namespace rmq::grpc;
using namespace std::chrono_literals;

TEST_CASE("grpc wire: grpc-timeout parse and format; huge values are capped, not overflowed") {
  CHECK(parseTimeout("250m") == std::chrono::nanoseconds(250ms));
  CHECK(parseTimeout("3S") == std::chrono::nanoseconds(3s));
  CHECK(parseTimeout("1n") == std::chrono::nanoseconds(1));
  CHECK_FALSE(parseTimeout("m"));
  CHECK_FALSE(parseTimeout("123456789S"));  // 9 digits
  CHECK_FALSE(parseTimeout("12x"));
  CHECK(parseTimeout("99999999H") == kMaxTimeout);  // fuzz/corpus/grpc_wire/timeout_overflow_hours
  CHECK(parseTimeout("50242502H") == kMaxTimeout);
  CHECK(parseTimeout("876000H") == kMaxTimeout);    // exactly the cap
  CHECK(formatTimeout(250ms) == "250000u");        // the shortest exact form with at most 8 digits
  CHECK(*parseTimeout(formatTimeout(kMaxTimeout)) == kMaxTimeout);
}

TEST_CASE("grpc wire: grpc-message percent-encoding round-trips every byte") {
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  auto encoded = percentEncode(all);
  for (unsigned char c : encoded) CHECK((c >= 0x20 && c <= 0x7E));
  CHECK(percentDecode(encoded) == all);
  CHECK(percentEncode("CODE: 17  DESC") == "CODE: 17  DESC");
  CHECK(percentEncode("100%") == "100%25");
}

TEST_CASE("grpc wire: messages split anywhere across DATA frames come out whole; the size limit holds") {
  std::string stream;
  for (std::string m : {"hello", "", "a longer second message"}) {
    stream += '\0';
    uint32_t n = static_cast<uint32_t>(m.size());
    for (int shift = 24; shift >= 0; shift -= 8) stream += static_cast<char>((n >> shift) & 0xff);
    stream += m;
  }
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    MessageReader reader(1024, "");
    std::vector<std::string> out;
    CHECK_FALSE(reader.feed(stream.data(), cut, out));
    CHECK_FALSE(reader.feed(stream.data() + cut, stream.size() - cut, out));
    REQUIRE(out.size() == 3);
    CHECK(out[0] == "hello");
    CHECK(out[1].empty());
    CHECK(out[2] == "a longer second message");
  }
  MessageReader small(4, "");
  std::vector<std::string> out;
  auto err = small.feed(stream.data(), stream.size(), out);
  REQUIRE(err);
  CHECK(err->code == StatusCode::RESOURCE_EXHAUSTED);
}
