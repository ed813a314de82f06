#pragma once
// SQL92 expression tree and the values it evaluates to. Semantics follow RocketMQ 4.9.7's
// ComparisonExpression/LogicExpression/UnaryExpression with string conversion enabled
// (PROTOCOL.md §11.2): three-valued logic, and an evaluation error (bad number conversion,
// string ordering) makes the whole expression fail, i.e. not match.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rmq::filter {
class PropertyLookup;
}

namespace rmq::filter::sql {

struct Value {
  enum class Type : uint8_t { Null, Bool, Long, Double, String, Error };
  Type type = Type::Null;
  bool b = false;
  int64_t l = 0;
  double d = 0;
  std::string_view s;  // points into a property value or a literal held by the tree

  static Value null() { return {}; }
  static Value error() { Value v; v.type = Type::Error; return v; }
  static Value boolean(bool x) { Value v; v.type = Type::Bool; v.b = x; return v; }
  static Value integer(int64_t x) { Value v; v.type = Type::Long; v.l = x; return v; }
  static Value real(double x) { Value v; v.type = Type::Double; v.d = x; return v; }
  static Value string(std::string_view x) { Value v; v.type = Type::String; v.s = x; return v; }
};

enum class Op : uint8_t {
  Constant, Property, And, Or, Not, Negate, BoolCast, Equal, IsNull, Greater, GreaterEq, Less,
  LessEq, In
};

struct Node {
  Op op = Op::Constant;
  Value constant;                       // Op::Constant (string payload in `text`)
  std::string text;                     // property name or string literal
  std::vector<std::string> inList;      // Op::In
  bool negated = false;                 // Op::In: NOT IN
  std::unique_ptr<Node> left, right;

  // BooleanExpression in the Java sense: usable directly as an AND/OR/NOT operand.
  bool isBoolean() const;
  bool isConstant() const { return op == Op::Constant; }
};

Value evaluate(const Node& node, const PropertyLookup& props);
// Java __compare with string conversion: nullopt when a conversion fails (evaluation error).
// Only called with non-null, non-error operands.
std::optional<int> compareValues(Value lv, Value rv);

}  // namespace rmq::filter::sql
