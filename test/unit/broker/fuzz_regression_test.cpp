// The broker side of a bug fuzz/fastjson found (fuzz/README.md): metadata JSON numbers beyond int64.
#include <doctest/doctest.h>

#include "common/json.h"
#include "roles/broker/metadata/json_text.h"

TEST_CASE("fuzz regression: a metadata number beyond int64 takes the default, not UB") {
  rapidjson::Document doc;
  REQUIRE(rmq::json::parse(R"({"a":6.66667e+36,"b":18446744073709551615,"c":-3.5,"d":7})", doc).ok());
  CHECK(rmq::broker::json::getInt(doc, "a", -1) == -1);
  CHECK(rmq::broker::json::getInt(doc, "b", -1) == -1);  // a uint64 above int64 went through the double too
  CHECK(rmq::broker::json::getInt(doc, "c", -1) == -3);
  CHECK(rmq::broker::json::getInt(doc, "d", -1) == 7);
}
