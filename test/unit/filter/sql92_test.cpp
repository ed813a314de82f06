#include <doctest/doctest.h>

#include <map>
#include <string>

#include "filter/filter.h"

using namespace rmq::filter;
using Props = std::map<std::string, std::string>;

namespace {

bool eval(const std::string& expr, const Props& props) {
  auto f = compileExpression(ExpressionType::Sql92, expr);
  REQUIRE_MESSAGE(f.ok(), expr << ": " << f.error().message);
  return f->matches("", MapProperties<Props>(props));
}

std::string compileError(const std::string& expr) {
  auto f = compileExpression("SQL92", expr);
  if (f.ok()) return "<compiled>";
  CHECK(f.error().code == 23);
  return f.error().message;
}

}  // namespace

TEST_CASE("SQL92 comparisons convert string properties to the literal's type") {
  Props p{{"a", "5"}, {"s", "abc"}, {"d", "2.5"}, {"flag", "TRUE"}, {"neg", "-3"}};
  CHECK(eval("a = 5", p));
  CHECK(eval("a > 4", p));
  CHECK_FALSE(eval("a > 5", p));
  CHECK(eval("a >= 5 AND a <= 5", p));
  CHECK(eval("a < 5.5", p));
  CHECK(eval("d = 2.5", p));
  CHECK(eval("d > 2.0", p));
  CHECK_FALSE(eval("d > 2", p));  // Java: Integer.valueOf("2.5") fails, so no match
  CHECK(eval("s = 'abc'", p));
  CHECK(eval("s <> 'abd'", p));
  CHECK(eval("flag = TRUE", p));
  CHECK(eval("neg = -3", p));
  CHECK(eval("neg < -2.5", p));
  CHECK(eval("5 = a", p));
  CHECK(eval("a = 5L", p));
  // A failed conversion is an evaluation error: no match, even inside OR.
  CHECK_FALSE(eval("s = 5", p));
  CHECK_FALSE(eval("s = 5 OR a = 5", p));
  CHECK(eval("a = 5 OR s = 5", p));  // short circuit: the failing side is never evaluated
  // Strings are ordered only when both parse as numbers.
  CHECK(eval("a > d", p));
  CHECK_FALSE(eval("s > a", p));
}

TEST_CASE("SQL92 null semantics") {
  Props p{{"a", "1"}};
  CHECK(eval("missing IS NULL", p));
  CHECK_FALSE(eval("a IS NULL", p));
  CHECK(eval("a IS NOT NULL", p));
  CHECK_FALSE(eval("missing = 1", p));
  CHECK_FALSE(eval("missing <> 1", p));  // null, not true
  CHECK_FALSE(eval("NOT (missing = 1)", p));
  CHECK(eval("missing = 1 OR a = 1", p));
  CHECK_FALSE(eval("missing = 1 AND a = 1", p));
  CHECK_FALSE(eval("missing > 1", p));
  CHECK_FALSE(eval("missing IN ('x')", p));
  CHECK_FALSE(eval("missing NOT IN ('x')", p));
}

TEST_CASE("SQL92 BETWEEN, IN, NOT, booleans, comments and keyword case") {
  Props p{{"n", "7"}, {"color", "red"}, {"TAGS", "TagA"}};
  CHECK(eval("n BETWEEN 1 AND 7", p));
  CHECK_FALSE(eval("n BETWEEN 8 AND 9", p));
  CHECK(eval("n NOT BETWEEN 8 AND 9", p));
  CHECK_FALSE(eval("n not between 1 and 10", p));
  CHECK(eval("color IN ('blue', 'red')", p));
  CHECK_FALSE(eval("color IN ('blue', 'green')", p));
  CHECK(eval("color NOT IN ('blue')", p));
  CHECK(eval("TAGS = 'TagA' and (n > 5 or color = 'x')", p));
  CHECK(eval("NOT (color = 'blue')", p));
  CHECK_FALSE(eval("NOT color = 'blue'", p));  // (NOT color) = 'blue': boolean vs string fails
  CHECK(eval("TRUE", p));
  CHECK_FALSE(eval("FALSE", p));
  CHECK_FALSE(eval("color", p));  // a property cast to boolean: strings are FALSE
  CHECK(eval("/* block */ n = 7 -- trailing comment", p));
  CHECK(eval("color = 'it''s' OR n = 7", p));
  CHECK(eval("n = 7.0", p));
  CHECK(eval("n < 1E2", p));
  CHECK(eval("n > .5", p));
  CHECK(eval("+n > -n", Props{{"n", "2"}}) == false);  // -n of a string is null: no match
}

TEST_CASE("SQL92 parse errors are clear and coded 23") {
  CHECK(compileError("a >").find("column 4") != std::string::npos);
  CHECK(compileError("a = 'unterminated").find("unterminated string") != std::string::npos);
  CHECK(compileError("a = 1 b").find("unexpected 'b'") != std::string::npos);
  CHECK(compileError("a # 1").find("unexpected character '#'") != std::string::npos);
  CHECK(compileError("a IN (1, 2)").find("string literals only") != std::string::npos);
  CHECK(compileError("a > 'x'").find("only numbers") != std::string::npos);
  CHECK(compileError("a = NULL").find("NULL cannot be compared") != std::string::npos);
  CHECK(compileError("a BETWEEN 5 AND 1").find("lower bound") != std::string::npos);
  CHECK(compileError("5").find("boolean") != std::string::npos);
  CHECK(compileError("'x' IN ('x')").find("must be a property") != std::string::npos);
  CHECK(compileError("(a = 1").find("expected ')'") != std::string::npos);
  CHECK(compileError("a LIKE 'x%'") != "<compiled>");
  CHECK(compileError("") != "<compiled>");
  CHECK(compileError("a = 99999999999999999999").find("long range") != std::string::npos);
}

TEST_CASE("SQL92 filters pass the CQ hash check and evaluate raw stored properties") {
  auto f = compileExpression(ExpressionType::Sql92, "TAGS = 'TagA' AND a > 3");
  REQUIRE(f.ok());
  CHECK(f->matchesTagsCode(12345));
  std::string raw = std::string("TAGS\x01TagA\x02") + "a\x01" + "10";
  CHECK(f->matches("TagA", RawProperties(raw)));
  std::string raw2 = std::string("TAGS\x01TagB\x02") + "a\x01" + "10";
  CHECK_FALSE(f->matches("TagB", RawProperties(raw2)));
  CHECK(f->type() == ExpressionType::Sql92);
  CHECK(f->expression() == "TAGS = 'TagA' AND a > 3");
}
