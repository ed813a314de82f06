// HA wire codec (PROTOCOL.md §9.2/§9.3): byte layout and stream reassembly.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "repl/ha_protocol.h"

using namespace rmq::repl;

namespace {
std::string bytes(std::initializer_list<int> b) {
  std::string s;
  for (int v : b) s.push_back(static_cast<char>(v));
  return s;
}
template <size_t N>
std::string str(const std::array<char, N>& a) { return std::string(a.data(), N); }

// Feeds `stream` to a FrameReader in pieces of `step` bytes; collects (offset, body) of each frame.
std::vector<std::pair<int64_t, std::string>> readAll(const std::string& stream, size_t step) {
  FrameReader r;
  std::vector<std::pair<int64_t, std::string>> out;
  for (size_t at = 0; at < stream.size(); at += step) {
    size_t n = std::min(step, stream.size() - at);
    std::memcpy(r.space(n), stream.data() + at, n);
    r.commit(n);
    for (;;) {
      auto f = r.next();
      REQUIRE(f.ok());
      if (!f->has_value()) break;
      out.emplace_back((*f)->phyOffset, std::string((*f)->body));
    }
  }
  CHECK(r.buffered() == 0);
  return out;
}
}  // namespace

TEST_CASE("HA report and frame header are big-endian, 8 and 12 bytes") {
  CHECK(str(encodeReport(0x0102030405060708)) == bytes({1, 2, 3, 4, 5, 6, 7, 8}));
  CHECK(str(encodeReport(0)) == std::string(8, '\0'));
  CHECK(str(encodeFrameHeader(0x1122334455667788, 0x00008000)) ==
        bytes({0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0, 0, 0x80, 0}));
  CHECK(str(encodeFrameHeader(1073741824, 0)) == bytes({0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0}));
}

TEST_CASE("ReportReader keeps partial reports and yields the newest complete one") {
  ReportReader r;
  std::string a = str(encodeReport(100)), b = str(encodeReport(200)), c = str(encodeReport(300));
  CHECK_FALSE(r.feed(a.substr(0, 3)).has_value());
  CHECK(r.feed(a.substr(3)) == 100);
  CHECK(r.feed(b + c) == 300);                       // two at once: the last counts (Java)
  CHECK(r.feed(b + c.substr(0, 5)) == 200);          // complete one + a partial one
  CHECK_FALSE(r.feed(c.substr(5, 1)).has_value());
  CHECK(r.feed(c.substr(6) + a.substr(0, 1)) == 300);
  CHECK(r.feed(a.substr(1)) == 100);
}

TEST_CASE("FrameReader reassembles frames split anywhere, heartbeats included") {
  std::string stream;
  std::vector<std::pair<int64_t, std::string>> want;
  int64_t off = 4096;
  for (int i = 0; i < 40; ++i) {
    std::string body(i % 7 == 0 ? 0 : 1 + (i * 977) % 5000, static_cast<char>('a' + i % 26));
    stream += str(encodeFrameHeader(off, static_cast<int32_t>(body.size()))) + body;
    want.emplace_back(off, body);
    off += static_cast<int64_t>(body.size());
  }
  for (size_t step : {1, 5, 12, 13, 4096, 1 << 20}) CHECK(readAll(stream, step) == want);
}

TEST_CASE("FrameReader refuses negative and oversized bodies") {
  for (int32_t size : {-1, kMaxFrameBody + 1}) {
    FrameReader r;
    auto h = encodeFrameHeader(0, size);
    std::memcpy(r.space(h.size()), h.data(), h.size());
    r.commit(h.size());
    auto f = r.next();
    REQUIRE_FALSE(f.ok());
    CHECK(f.error().message.find("body of") != std::string::npos);
  }
}
