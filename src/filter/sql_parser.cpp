#include "filter/sql_parser.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

#include "common/response_code.h"
#include "filter/sql_lexer.h"

namespace rmq::filter::sql {

bool Node::isBoolean() const {
  switch (op) {
    case Op::Constant: return constant.type == Value::Type::Bool || constant.type == Value::Type::Null;
    case Op::Property: case Op::Negate: return false;
    default: return true;
  }
}

namespace {

using NodePtr = std::unique_ptr<Node>;

// Parse failures unwind through this exception inside the parser only; parse() turns it into
// an Error value.
struct ParseFailure { std::string message; };

NodePtr makeNode(Op op, NodePtr left = nullptr, NodePtr right = nullptr) {
  auto n = std::make_unique<Node>();
  n->op = op;
  n->left = std::move(left);
  n->right = std::move(right);
  return n;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : toks_(std::move(toks)) {}

  NodePtr parseAll() {
    NodePtr e = orExpr();
    if (peek().kind != Tok::End) fail(fmt::format("unexpected {}", describe(peek())));
    return asBoolean(std::move(e));
  }

 private:
  const Token& peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return toks_[i < toks_.size() ? i : toks_.size() - 1];
  }
  bool accept(Tok kind) {
    if (peek().kind != kind) return false;
    ++pos_;
    return true;
  }
  void expect(Tok kind) {
    if (!accept(kind)) fail(fmt::format("expected {}, found {}", tokenName(kind), describe(peek())));
  }
  static std::string describe(const Token& t) {
    if (t.kind == Tok::End) return tokenName(t.kind);
    return fmt::format("'{}'", t.text);
  }
  [[noreturn]] void fail(std::string what) const {
    throw ParseFailure{fmt::format("SQL92 syntax error at column {}: {}", peek().column, what)};
  }
  [[noreturn]] static void semantic(std::string what) { throw ParseFailure{"SQL92 expression invalid: " + what}; }

  // Java asBooleanExpression: properties are cast, other non-boolean operands are rejected.
  NodePtr asBoolean(NodePtr e) {
    if (e->isBoolean()) return e;
    if (e->op == Op::Property) return makeNode(Op::BoolCast, std::move(e));
    semantic("operand will not result in a boolean value");
  }

  NodePtr orExpr() {
    NodePtr left = andExpr();
    while (accept(Tok::Or)) left = makeNode(Op::Or, asBoolean(std::move(left)), asBoolean(andExpr()));
    return left;
  }
  NodePtr andExpr() {
    NodePtr left = equalityExpr();
    while (accept(Tok::And)) left = makeNode(Op::And, asBoolean(std::move(left)), asBoolean(equalityExpr()));
    return left;
  }

  static void checkEqualOperand(const Node& n) {
    if (n.isConstant() && n.constant.type == Value::Type::Null) semantic("NULL cannot be compared with '=' or '<>'");
  }
  NodePtr equalityExpr() {
    NodePtr left = comparisonExpr();
    for (;;) {
      if (peek().kind == Tok::Eq || peek().kind == Tok::Ne) {
        bool notEqual = peek().kind == Tok::Ne;
        ++pos_;
        NodePtr right = comparisonExpr();
        checkEqualOperand(*left);
        checkEqualOperand(*right);
        if (left->isConstant() && right->isConstant() && left->isBoolean() && !right->isBoolean())
          semantic("a boolean constant cannot be compared with a non-boolean constant");
        left = makeNode(Op::Equal, std::move(left), std::move(right));
        if (notEqual) left = makeNode(Op::Not, std::move(left));
      } else if (peek().kind == Tok::Is) {
        ++pos_;
        bool isNot = accept(Tok::Not);
        expect(Tok::Null);
        left = makeNode(Op::IsNull, std::move(left));
        if (isNot) left = makeNode(Op::Not, std::move(left));
      } else {
        return left;
      }
    }
  }

  static void checkOrderable(const Node& n) {
    if (n.isConstant()) {
      auto t = n.constant.type;
      if (t != Value::Type::Long && t != Value::Type::Double)
        semantic("only numbers can be compared with '>', '>=', '<', '<=' or BETWEEN");
    } else if (n.isBoolean()) {
      semantic("a boolean expression cannot be compared with '>', '>=', '<', '<=' or BETWEEN");
    }
  }
  NodePtr ordering(Op op, NodePtr left, NodePtr right) {
    checkOrderable(*left);
    checkOrderable(*right);
    return makeNode(op, std::move(left), std::move(right));
  }
  NodePtr between(NodePtr value, bool negated) {
    NodePtr low = unaryExpr();
    expect(Tok::And);
    NodePtr high = unaryExpr();
    if (low->isConstant() && high->isConstant()) {
      if (low->constant.type == Value::Type::Null || high->constant.type == Value::Type::Null)
        semantic("BETWEEN bounds cannot be NULL");
      auto cmp = compareValues(high->constant, low->constant);
      if (cmp && *cmp < 0) semantic("BETWEEN lower bound must be less than or equal to the upper bound");
    }
    // The tested value is evaluated twice; duplicate the subtree (it is a property or literal).
    NodePtr copy = clone(*value);
    if (negated)
      return makeNode(Op::Or, ordering(Op::Less, std::move(value), std::move(low)),
                      ordering(Op::Greater, std::move(copy), std::move(high)));
    return makeNode(Op::And, ordering(Op::GreaterEq, std::move(value), std::move(low)),
                    ordering(Op::LessEq, std::move(copy), std::move(high)));
  }
  NodePtr inList(NodePtr value, bool negated) {
    if (value->op != Op::Property) semantic("the left side of IN must be a property");
    NodePtr n = makeNode(Op::In, std::move(value));
    n->negated = negated;
    expect(Tok::LParen);
    do {
      if (peek().kind != Tok::String) fail(fmt::format("IN accepts string literals only, found {}", describe(peek())));
      n->inList.push_back(peek().text);
      ++pos_;
    } while (accept(Tok::Comma));
    expect(Tok::RParen);
    return n;
  }
  NodePtr comparisonExpr() {
    NodePtr left = unaryExpr();
    for (;;) {
      Tok k = peek().kind;
      if (k == Tok::Gt || k == Tok::Ge || k == Tok::Lt || k == Tok::Le) {
        ++pos_;
        Op op = k == Tok::Gt ? Op::Greater : k == Tok::Ge ? Op::GreaterEq : k == Tok::Lt ? Op::Less : Op::LessEq;
        left = ordering(op, std::move(left), unaryExpr());
      } else if (k == Tok::Between) {
        ++pos_;
        left = between(std::move(left), false);
      } else if (k == Tok::In) {
        ++pos_;
        left = inList(std::move(left), false);
      } else if (k == Tok::Not && (peek(1).kind == Tok::Between || peek(1).kind == Tok::In)) {
        bool isBetween = peek(1).kind == Tok::Between;
        pos_ += 2;
        left = isBetween ? between(std::move(left), true) : inList(std::move(left), true);
      } else {
        return left;
      }
    }
  }

  NodePtr unaryExpr() {
    if (accept(Tok::Plus)) return unaryExpr();
    if (accept(Tok::Minus)) return makeNode(Op::Negate, unaryExpr());
    if (accept(Tok::Not)) return makeNode(Op::Not, asBoolean(unaryExpr()));
    return primaryExpr();
  }

  NodePtr primaryExpr() {
    const Token& t = peek();
    auto constant = [&](Value v) {
      NodePtr n = makeNode(Op::Constant);
      n->constant = v;
      ++pos_;
      return n;
    };
    switch (t.kind) {
      case Tok::String: {
        NodePtr n = makeNode(Op::Constant);
        n->text = t.text;
        n->constant = Value::string({});
        ++pos_;
        return n;
      }
      case Tok::Decimal: return constant(Value::integer(parseLong(t.text)));
      case Tok::Float: return constant(Value::real(parseDouble(t.text)));
      case Tok::True: return constant(Value::boolean(true));
      case Tok::False: return constant(Value::boolean(false));
      case Tok::Null: return constant(Value::null());
      case Tok::Ident: {
        NodePtr n = makeNode(Op::Property);
        n->text = t.text;
        ++pos_;
        return n;
      }
      case Tok::LParen: {
        ++pos_;
        NodePtr e = orExpr();
        expect(Tok::RParen);
        return e;
      }
      default: fail(fmt::format("expected a value, property or '(', found {}", describe(t)));
    }
  }

  int64_t parseLong(std::string text) {
    if (!text.empty() && (text.back() == 'l' || text.back() == 'L')) text.pop_back();
    errno = 0;
    long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE) fail(fmt::format("integer {} is out of the long range", text));
    return v;
  }
  double parseDouble(const std::string& text) {
    double v = std::strtod(text.c_str(), nullptr);
    if (v > 1.7976931348623157e308) fail(fmt::format("{} is greater than Double.MAX_VALUE", text));
    return v;
  }

  static NodePtr clone(const Node& n) {
    auto c = std::make_unique<Node>();
    c->op = n.op;
    c->constant = n.constant;
    c->text = n.text;
    c->inList = n.inList;
    c->negated = n.negated;
    if (n.left) c->left = clone(*n.left);
    if (n.right) c->right = clone(*n.right);
    return c;
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::unique_ptr<Node>> parse(std::string_view text) {
  auto toks = tokenize(text);
  if (!toks) return toks.error();
  try {
    Parser p(std::move(toks.value()));
    return p.parseAll();
  } catch (const ParseFailure& f) {
    return makeError(ResponseCode::SUBSCRIPTION_PARSE_FAILED, f.message);
  }
}

}  // namespace rmq::filter::sql
