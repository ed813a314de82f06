#include "filter/sql_lexer.h"

#include <fmt/format.h>

#include <cctype>

#include "common/response_code.h"

namespace rmq::filter::sql {

namespace {

bool identStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool identPart(char c) { return identStart(c) || std::isdigit(static_cast<unsigned char>(c)); }
bool digit(char c) { return c >= '0' && c <= '9'; }

Tok keywordOrIdent(std::string_view word) {
  struct Kw { const char* name; Tok tok; };
  static const Kw kws[] = {{"NOT", Tok::Not}, {"AND", Tok::And},   {"OR", Tok::Or},
                           {"BETWEEN", Tok::Between}, {"IN", Tok::In}, {"TRUE", Tok::True},
                           {"FALSE", Tok::False}, {"NULL", Tok::Null}, {"IS", Tok::Is}};
  for (const auto& kw : kws) {
    std::string_view name(kw.name);
    if (name.size() != word.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i)
      same = std::toupper(static_cast<unsigned char>(word[i])) == name[i];
    if (same) return kw.tok;
  }
  return Tok::Ident;
}

// Scans a number starting at s[i] following the JavaCC literal rules; returns its kind.
Tok scanNumber(std::string_view s, size_t& i) {
  size_t start = i;
  while (i < s.size() && digit(s[i])) ++i;
  bool isFloat = false;
  if (i < s.size() && s[i] == '.') {
    isFloat = true;
    ++i;
    while (i < s.size() && digit(s[i])) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && digit(s[j]) && i > start && !(s[start] == '.' && i == start + 1)) {
      while (j < s.size() && digit(s[j])) ++j;
      i = j;
      isFloat = true;
    }
  }
  if (isFloat) return Tok::Float;
  if (s[start] == '0') { i = start + 1; return Tok::Decimal; }  // "0" | [1-9][0-9]*[lL]?
  if (i < s.size() && (s[i] == 'l' || s[i] == 'L')) ++i;
  return Tok::Decimal;
}

Error lexError(size_t pos, std::string what) {
  return makeError(ResponseCode::SUBSCRIPTION_PARSE_FAILED,
                   fmt::format("SQL92 syntax error at column {}: {}", pos + 1, what));
}

}  // namespace

const char* tokenName(Tok kind) {
  static const char* names[] = {"end of expression", "identifier", "string literal", "integer",
                                "number", "NOT", "AND", "OR", "BETWEEN", "IN", "TRUE", "FALSE",
                                "NULL", "IS", "'='", "'<>'", "'>'", "'>='", "'<'", "'<='", "'('",
                                "')'", "','", "'+'", "'-'"};
  return names[static_cast<int>(kind)];
}

Result<std::vector<Token>> tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  auto emit = [&](Tok kind, size_t start, std::string text) {
    out.push_back(Token{kind, std::move(text), start + 1});
  };
  while (i < s.size()) {
    char c = s[i];
    size_t start = i;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') { ++i; continue; }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      while (i < s.size() && s[i] != '\n' && s[i] != '\r') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) return lexError(start, "unterminated /* comment");
      i = end + 2;
      continue;
    }
    if (identStart(c)) {
      while (i < s.size() && identPart(s[i])) ++i;
      std::string_view word = s.substr(start, i - start);
      emit(keywordOrIdent(word), start, std::string(word));
      continue;
    }
    if (digit(c) || (c == '.' && i + 1 < s.size() && digit(s[i + 1]))) {
      Tok kind = scanNumber(s, i);
      emit(kind, start, std::string(s.substr(start, i - start)));
      continue;
    }
    if (c == '\'') {
      std::string text;
      ++i;
      for (;;) {
        if (i >= s.size()) return lexError(start, "unterminated string literal");
        if (s[i] == '\'') {
          if (i + 1 < s.size() && s[i + 1] == '\'') { text += '\''; i += 2; continue; }
          ++i;
          break;
        }
        text += s[i++];
      }
      emit(Tok::String, start, std::move(text));
      continue;
    }
    auto two = s.substr(i, 2);
    if (two == "<>") { emit(Tok::Ne, start, "<>"); i += 2; continue; }
    if (two == ">=") { emit(Tok::Ge, start, ">="); i += 2; continue; }
    if (two == "<=") { emit(Tok::Le, start, "<="); i += 2; continue; }
    Tok single;
    switch (c) {
      case '=': single = Tok::Eq; break;
      case '>': single = Tok::Gt; break;
      case '<': single = Tok::Lt; break;
      case '(': single = Tok::LParen; break;
      case ')': single = Tok::RParen; break;
      case ',': single = Tok::Comma; break;
      case '+': single = Tok::Plus; break;
      case '-': single = Tok::Minus; break;
      default: return lexError(start, fmt::format("unexpected character '{}'", c));
    }
    emit(single, start, std::string(1, c));
    ++i;
  }
  out.push_back(Token{Tok::End, {}, s.size() + 1});
  return out;
}

}  // namespace rmq::filter::sql
