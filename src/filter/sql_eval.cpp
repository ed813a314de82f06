// SQL92 evaluation with Java's conversion rules (ComparisonExpression.__compare, convert string
// expressions on). Strings are parsed as Java's Long.valueOf / Double.valueOf / Boolean.valueOf.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "filter/filter.h"
#include "filter/sql_ast.h"

namespace rmq::filter::sql {

namespace {

using T = Value::Type;

bool isJavaSpace(char c) { return static_cast<unsigned char>(c) <= ' '; }

std::optional<int64_t> javaLong(std::string_view s) {  // Long.valueOf: [+-]digits, no spaces
  if (s.empty() || s.size() > 24) return std::nullopt;
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  for (size_t k = i; k < s.size(); ++k)
    if (s[k] < '0' || s[k] > '9') return std::nullopt;
  std::string buf(s);
  errno = 0;
  long long v = std::strtoll(buf.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return v;
}

std::optional<double> javaDouble(std::string_view s) {  // Double.valueOf: trimmed, d/f suffix ok
  while (!s.empty() && isJavaSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isJavaSpace(s.back())) s.remove_suffix(1);
  if (!s.empty() && (s.back() == 'd' || s.back() == 'D' || s.back() == 'f' || s.back() == 'F')) s.remove_suffix(1);
  if (s.empty() || s.size() > 64) return std::nullopt;
  for (char c : s)  // reject C-only forms such as "inf", "nan" and hex without Java spelling
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'))
      return s == "NaN" || s == "Infinity" || s == "+Infinity" || s == "-Infinity"
                 ? std::optional<double>(std::strtod(std::string(s).c_str(), nullptr))
                 : std::nullopt;
  std::string buf(s);
  char* end = nullptr;
  double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size()) return std::nullopt;
  return v;
}

bool javaBoolean(std::string_view s) {  // Boolean.valueOf: "true" ignoring case, else false
  if (s.size() != 4) return false;
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower == "true";
}

int cmpDouble(double a, double b) {  // Double.compareTo: NaN above everything
  if (a < b) return -1;
  if (a > b) return 1;
  bool an = std::isnan(a), bn = std::isnan(b);
  return an == bn ? 0 : (an ? 1 : -1);
}
template <class X>
int cmp(X a, X b) { return a < b ? -1 : (a > b ? 1 : 0); }

int cmpSame(Value a, Value b) {
  switch (a.type) {
    case T::Bool: return cmp<int>(a.b, b.b);
    case T::Long: return cmp(a.l, b.l);
    case T::Double: return cmpDouble(a.d, b.d);
    case T::String: { int c = a.s.compare(b.s); return c < 0 ? -1 : (c > 0 ? 1 : 0); }
    default: return 0;
  }
}

}  // namespace

std::optional<int> compareValues(Value lv, Value rv) {
  if (lv.type == rv.type) return cmpSame(lv, rv);
  switch (lv.type) {
    case T::Bool:
      if (rv.type == T::String) return std::nullopt;  // Java: ClassCastException
      return -1;
    case T::Long:
      if (rv.type == T::Double) return cmpDouble(static_cast<double>(lv.l), rv.d);
      if (rv.type == T::String) { auto r = javaLong(rv.s); if (!r) return std::nullopt; return cmp(lv.l, *r); }
      return -1;
    case T::Double:
      if (rv.type == T::Long) return cmpDouble(lv.d, static_cast<double>(rv.l));
      if (rv.type == T::String) { auto r = javaDouble(rv.s); if (!r) return std::nullopt; return cmpDouble(lv.d, *r); }
      return -1;
    case T::String:
      if (rv.type == T::Bool) return cmp<int>(javaBoolean(lv.s), rv.b);
      if (rv.type == T::Long) { auto l = javaLong(lv.s); if (!l) return std::nullopt; return cmp(*l, rv.l); }
      if (rv.type == T::Double) { auto l = javaDouble(lv.s); if (!l) return std::nullopt; return cmpDouble(*l, rv.d); }
      return -1;
    default:
      return -1;
  }
}

namespace {

Value evalEqual(const Node& n, const PropertyLookup& props) {
  Value lv = evaluate(*n.left, props);
  if (lv.type == T::Error) return lv;
  Value rv = n.op == Op::IsNull ? Value::null() : evaluate(*n.right, props);
  if (rv.type == T::Error) return rv;
  bool ln = lv.type == T::Null, rn = rv.type == T::Null;
  if (ln && rn) return Value::boolean(true);
  if (ln) return Value::null();
  if (rn) return Value::boolean(false);
  auto c = compareValues(lv, rv);
  return c ? Value::boolean(*c == 0) : Value::error();
}

Value evalOrdering(const Node& n, const PropertyLookup& props) {
  Value lv = evaluate(*n.left, props);
  if (lv.type == T::Error || lv.type == T::Null) return lv;
  Value rv = evaluate(*n.right, props);
  if (rv.type == T::Error || rv.type == T::Null) return rv;
  std::optional<int> c;
  if (lv.type == T::String && rv.type == T::String) {  // strings are ordered as doubles only
    auto a = javaDouble(lv.s), b = javaDouble(rv.s);
    if (!a || !b) return Value::error();
    c = cmpDouble(*a, *b);
  } else {
    c = compareValues(lv, rv);
  }
  if (!c) return Value::error();
  switch (n.op) {
    case Op::Greater: return Value::boolean(*c > 0);
    case Op::GreaterEq: return Value::boolean(*c >= 0);
    case Op::Less: return Value::boolean(*c < 0);
    default: return Value::boolean(*c <= 0);
  }
}

// AND/OR as LogicExpression: short-circuit, null only when the other side does not decide.
Value evalLogic(const Node& n, const PropertyLookup& props) {
  bool isAnd = n.op == Op::And;
  Value lv = evaluate(*n.left, props);
  if (lv.type == T::Error) return lv;
  if (lv.type == T::Bool && lv.b != isAnd) return Value::boolean(!isAnd);
  Value rv = evaluate(*n.right, props);
  if (rv.type == T::Error) return rv;
  if (rv.type == T::Bool && rv.b != isAnd) return Value::boolean(!isAnd);
  if (lv.type == T::Null || rv.type == T::Null) return Value::null();
  return Value::boolean(isAnd);
}

}  // namespace

Value evaluate(const Node& n, const PropertyLookup& props) {
  switch (n.op) {
    case Op::Constant:
      return n.constant.type == T::String ? Value::string(n.text) : n.constant;
    case Op::Property: {
      auto v = props.get(n.text);
      return v ? Value::string(*v) : Value::null();
    }
    case Op::And: case Op::Or: return evalLogic(n, props);
    case Op::Not: {
      Value v = evaluate(*n.left, props);
      if (v.type == T::Null || v.type == T::Error) return v;
      if (v.type != T::Bool) return Value::error();
      return Value::boolean(!v.b);
    }
    case Op::Negate: {
      Value v = evaluate(*n.left, props);
      if (v.type == T::Long) return Value::integer(-v.l);
      if (v.type == T::Double) return Value::real(-v.d);
      return v.type == T::Error ? v : Value::null();
    }
    case Op::BoolCast: {
      Value v = evaluate(*n.left, props);
      if (v.type == T::Null || v.type == T::Error || v.type == T::Bool) return v;
      return Value::boolean(false);
    }
    case Op::Equal: case Op::IsNull: return evalEqual(n, props);
    case Op::Greater: case Op::GreaterEq: case Op::Less: case Op::LessEq: return evalOrdering(n, props);
    case Op::In: {
      Value v = evaluate(*n.left, props);
      if (v.type != T::String) return v.type == T::Error ? v : Value::null();
      bool found = std::find(n.inList.begin(), n.inList.end(), v.s) != n.inList.end();
      return Value::boolean(found != n.negated);
    }
  }
  return Value::error();
}

}  // namespace rmq::filter::sql
