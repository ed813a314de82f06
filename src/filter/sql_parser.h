#pragma once
// Recursive-descent parser for the SQL92 subset, precedence as in SelectorParser.jj:
// OR < AND < (=, <>, IS [NOT] NULL) < (>, >=, <, <=, [NOT] BETWEEN, [NOT] IN) < unary (+, -, NOT).
// Compile-time checks match Java's (e.g. "a > 'x'", "a = NULL", BETWEEN 5 AND 1 are errors).
#include <memory>
#include <string_view>

#include "common/result.h"
#include "filter/sql_ast.h"

namespace rmq::filter::sql {

// Errors carry SUBSCRIPTION_PARSE_FAILED (23) and a message naming the column.
Result<std::unique_ptr<Node>> parse(std::string_view text);

}  // namespace rmq::filter::sql
