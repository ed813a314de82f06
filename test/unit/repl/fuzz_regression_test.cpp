// Inputs run through fuzz/ha_slave_stream that broke the HA frame reader (fuzz/README.md); the same
// bytes are in the committed corpus.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "repl/ha_protocol.h"

using namespace rmq::repl;

namespace {
// One whole frame (header + `size` body bytes) fed to a fresh FrameReader: its first next().
rmq::Result<std::optional<Frame>> readOne(FrameReader& r, int64_t offset, int32_t size) {
  auto h = encodeFrameHeader(offset, size);
  std::string frame(h.data(), h.size());
  frame.append(static_cast<size_t>(size), 'x');
  std::memcpy(r.space(frame.size()), frame.data(), frame.size());
  r.commit(frame.size());
  return r.next();
}
}  // namespace

TEST_CASE("fuzz regression: an HA frame whose offset is negative or whose end overflows int64 is refused") {
  // fuzz/corpus/ha_slave_stream/regression-offset-overflow: a frame at INT64_MAX with a 4-byte body;
  // an empty slave accepted it and computed offset + size (signed overflow, UB).
  struct Case { int64_t offset; int32_t size; };
  for (Case c : {Case{INT64_MAX, 4}, Case{INT64_MAX - 3, 4}, Case{-1, 0}, Case{INT64_MIN, 4}}) {
    FrameReader r;
    auto f = readOne(r, c.offset, c.size);
    REQUIRE_FALSE(f.ok());
    CHECK(f.error().message.find("outside a commit log") != std::string::npos);
  }
  // The largest offsets that still fit are fine, heartbeat (size 0) at INT64_MAX included.
  for (Case c : {Case{INT64_MAX - 4, 4}, Case{INT64_MAX, 0}}) {
    FrameReader r;
    auto f = readOne(r, c.offset, c.size);
    REQUIRE(f.ok());
    REQUIRE(f->has_value());
    CHECK((*f)->phyOffset == c.offset);
  }
}
