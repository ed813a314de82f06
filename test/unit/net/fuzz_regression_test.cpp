// Inputs run through fuzz/remoting_frame, fuzz/heartbeat and fuzz/fastjson that crashed or hit UB
// before their fix (fuzz/README.md); the same bytes are in the committed corpus.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "common/bytes.h"
#include "common/json.h"
#include "net/frame_codec.h"

using namespace rmq;

namespace {
std::string jsonFrame(const std::string& header) {  // a frame without its total-length prefix
  std::string f;
  putBE32(f, static_cast<uint32_t>(header.size()));
  return f + header;
}
}  // namespace

TEST_CASE("fuzz regression: a JSON header number beyond int64 is a bad header, not UB") {
  // fuzz/corpus/remoting_frame/regression-double-out-of-range: static_cast<int64_t>(4.2e86) was UB.
  for (const char* h : {R"({"code":4.22222e+86})", R"({"code":-1e19})", R"({"extFields":{"a":1e300}})"}) {
    auto r = net::decodeFrame(jsonFrame(h));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("bad JSON header") != std::string::npos);
  }
  auto ok = net::decodeFrame(jsonFrame(R"({"code":310.0,"opaque":-2147483648.5})"));
  REQUIRE(ok.ok());
  CHECK(ok->code == 310);
  CHECK(ok->opaque == INT32_MIN);
}

TEST_CASE("fuzz regression: a deeply nested JSON header is refused without exhausting the stack") {
  // 200k '[' used to recurse once per level in rapidjson's reader: a stack overflow on the
  // network thread from a single 200 KB frame (fuzz/corpus/remoting_frame/regression-deep-nesting
  // holds a 300-level one).
  auto r = net::decodeFrame(jsonFrame("{\"a\":" + std::string(200000, '[')));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("nested deeper than 256 levels") != std::string::npos);
  std::string atLimit = "{\"a\":" + std::string(json::kMaxNesting - 1, '[') + std::string(json::kMaxNesting - 1, ']') + "}";
  CHECK(net::decodeFrame(jsonFrame(atLimit)).ok());
}

TEST_CASE("fuzz regression: JSON bodies nested too deep are refused, object-valued keys included") {
  rapidjson::Document doc;
  for (std::string text : {std::string(200000, '['), "{\"a\":" + std::string(200000, '[')}) {
    auto r = json::parse(text, doc);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("nested deeper than 256 levels") != std::string::npos);
  }
  // fastjson's object-valued keys are parsed on their own: their depth still counts.
  std::string keyed = R"({"a":1})";  // {{{"a":1}:1}:1} ... 300 levels of keys
  for (int i = 0; i < 300; ++i) keyed = "{" + keyed + ":1}";
  auto r = json::parse(keyed, doc);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("nested deeper than 256 levels") != std::string::npos);
  keyed = R"({"a":1})";
  for (int i = 0; i < 20; ++i) keyed = "{" + keyed + ":1}";
  CHECK(json::parse(keyed, doc).ok());
  std::string fine = std::string(255, '[') + std::string(255, ']');
  CHECK(json::parse(fine, doc).ok());
}

TEST_CASE("fuzz regression: json::getInt64 of a number beyond int64 is absent, not UB") {
  // fuzz/corpus/fastjson/regression-getint64-out-of-range: static_cast<int64_t>(6.7e36) was UB.
  rapidjson::Document doc;
  REQUIRE(json::parse(R"({"big":6.66667e+36,"neg":-1e19,"cut":-12.9,"edge":9.3e18,"ok":42})", doc).ok());
  CHECK_FALSE(json::getInt64(doc, "big").has_value());
  CHECK_FALSE(json::getInt64(doc, "neg").has_value());
  CHECK_FALSE(json::getInt64(doc, "edge").has_value());
  CHECK_FALSE(json::int64OfDouble(0x1p63).has_value());  // 2^63 itself
  CHECK(json::getInt64(doc, "cut") == -12);
  CHECK(json::getInt64(doc, "ok") == 42);
  CHECK(json::int64OfDouble(-0x1p63) == INT64_MIN);
  CHECK_FALSE(json::int64OfDouble(std::numeric_limits<double>::quiet_NaN()).has_value());
}

TEST_CASE("fuzz regression: a number that overflows a double is refused, not kept as infinity") {
  // fuzz/corpus/fastjson/regression-overflow-to-infinity (found by CI's brief fuzzing run):
  // rapidjson read 2160060e306 as +inf, and the document could then not be written back.
  rapidjson::Document doc;
  auto r = json::parse("\r\r\r2160060e00306", doc);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("too big") != std::string::npos);
  CHECK_FALSE(json::parse(R"({"a":[1,{"b":-2160060e306}]})", doc).ok());
  REQUIRE(json::parse(R"({"a":[1,{"b":-2.5e306}]})", doc).ok());
  CHECK(json::parse(json::toString(doc), doc).ok());
}
