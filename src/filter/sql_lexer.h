#pragma once
// Tokenizer for RocketMQ's SQL92 subset (PROTOCOL.md §11.2, SelectorParser.jj): keywords are
// case-insensitive, identifiers [a-zA-Z_$][a-zA-Z0-9_$]*, '' escapes a quote inside strings,
// "-- line" and "/* block */" comments are skipped.
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace rmq::filter::sql {

enum class Tok {
  End, Ident, String, Decimal, Float,
  Not, And, Or, Between, In, True, False, Null, Is,
  Eq, Ne, Gt, Ge, Lt, Le, LParen, RParen, Comma, Plus, Minus,
};

struct Token {
  Tok kind = Tok::End;
  std::string text;   // identifier name, decoded string literal or number image
  size_t column = 0;  // 1-based position in the expression, for error messages
};

const char* tokenName(Tok kind);
// Error code SUBSCRIPTION_PARSE_FAILED (23) with the column of the offending character.
Result<std::vector<Token>> tokenize(std::string_view text);

}  // namespace rmq::filter::sql
