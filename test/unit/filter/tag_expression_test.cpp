#include <doctest/doctest.h>

#include "filter/filter.h"
#include "filter/tag_expression.h"

using namespace rmq::filter;

TEST_CASE("javaStringHash matches Java String.hashCode") {
  // Values computed by Java: "TagA".hashCode() == 2598919 (§3.5 example), "".hashCode() == 0.
  CHECK(javaStringHash("TagA") == 2598919);
  CHECK(javaStringHash("TagB") == 2598920);
  CHECK(javaStringHash("") == 0);
  CHECK(javaStringHash("hello world") == 1794106052);
  CHECK(javaStringHash("abcdefghijklmnopqrstuvwxyz") == 958031277);  // overflows int
  CHECK(javaStringHash("\xC3\xA9") == 0xE9);                          // "é" is one UTF-16 unit
  CHECK(javaStringHash("\xF0\x9F\x98\x80") == 0xD83D * 31 + 0xDE00);  // U+1F600, surrogate pair
}

TEST_CASE("tag expression parsing trims, splits on || and dedups") {
  auto all = parseTagExpression("*");
  CHECK(all.matchAll());
  CHECK(all.subString == "*");
  CHECK(parseTagExpression("").matchAll());
  CHECK(parseTagExpression("  * ").matchAll());

  auto two = parseTagExpression(" TagA ||TagB||  || TagA ");
  REQUIRE(two.tags.size() == 2);
  CHECK(two.tags[0] == "TagA");
  CHECK(two.tags[1] == "TagB");
  CHECK(two.codes == std::vector<int32_t>{2598919, 2598920});
  CHECK(two.subString == " TagA ||TagB||  || TagA ");

  auto single = parseTagExpression("A");
  CHECK(single.tags == std::vector<std::string>{"A"});
  CHECK(parseTagExpression("||").matchAll());
}

TEST_CASE("tag filter: hash match on the broker, exact re-check on the client") {
  auto f = compileExpression(ExpressionType::Tag, "TagA || TagB");
  REQUIRE(f.ok());
  CHECK(f->matchesTagsCode(2598919));
  CHECK(f->matchesTagsCode(static_cast<int64_t>(2598920)));
  CHECK_FALSE(f->matchesTagsCode(12345));
  RawProperties none("");
  CHECK(f->matches("TagA", none));
  CHECK_FALSE(f->matches("TagC", none));
  CHECK_FALSE(f->matches("", none));  // a message without tags does not match a tag list
  // Two strings with the same Java hash: "Aa" and "BB". The CQ check passes, the re-check doesn't.
  auto aa = compileExpression(ExpressionType::Tag, "Aa");
  REQUIRE(aa.ok());
  CHECK(aa->matchesTagsCode(javaStringHash("BB")));
  CHECK_FALSE(aa->matchesTags("BB"));

  auto star = compileExpression("TAG", "*");
  REQUIRE(star.ok());
  CHECK(star->matchAll());
  CHECK(star->matchesTagsCode(-1));
  CHECK(star->matches("", none));
  auto bad = compileExpression("XPATH", "a");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == 23);
}

TEST_CASE("raw properties lookup follows the stored string format") {
  std::string raw = std::string("TAGS\x01TagA\x02KEYS\x01k1 k2\x02") + "empty\x01\x02\x01novalue\x02" + "a\x01" + "1";
  RawProperties p(raw);
  CHECK(p.get("TAGS") == std::optional<std::string_view>("TagA"));
  CHECK(p.get("KEYS") == std::optional<std::string_view>("k1 k2"));
  CHECK(p.get("a") == std::optional<std::string_view>("1"));
  CHECK_FALSE(p.get("empty").has_value());
  CHECK_FALSE(p.get("tags").has_value());  // case-sensitive
  CHECK_FALSE(p.get("missing").has_value());
}
