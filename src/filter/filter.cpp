#include "filter/filter.h"

#include <algorithm>

#include "common/message_codec.h"
#include "common/response_code.h"
#include "filter/sql_ast.h"
#include "filter/sql_parser.h"

namespace rmq::filter {

std::optional<ExpressionType> parseExpressionType(std::string_view name) {
  if (name.empty() || name == "TAG") return ExpressionType::Tag;
  if (name == "SQL92") return ExpressionType::Sql92;
  return std::nullopt;
}

const char* expressionTypeName(ExpressionType type) {
  return type == ExpressionType::Sql92 ? "SQL92" : "TAG";
}

std::optional<std::string_view> RawProperties::get(std::string_view name) const {
  return findEncodedProperty(encoded_, name);
}

bool Filter::matchesTagsCode(int64_t tagsCode) const {
  if (type_ != ExpressionType::Tag || tags_.matchAll()) return true;
  auto code = static_cast<int32_t>(tagsCode);
  return std::find(tags_.codes.begin(), tags_.codes.end(), code) != tags_.codes.end();
}

bool Filter::matchesTags(std::string_view tags) const {
  if (type_ != ExpressionType::Tag || tags_.matchAll()) return true;
  return std::find(tags_.tags.begin(), tags_.tags.end(), tags) != tags_.tags.end();
}

bool Filter::matchesProperties(const PropertyLookup& properties) const {
  if (type_ != ExpressionType::Sql92) return true;
  sql::Value v = sql::evaluate(*sql_, properties);
  return v.type == sql::Value::Type::Bool && v.b;
}

bool Filter::matches(std::string_view tags, const PropertyLookup& properties) const {
  return type_ == ExpressionType::Tag ? matchesTags(tags) : matchesProperties(properties);
}

Result<Filter> compileExpression(ExpressionType type, std::string_view text) {
  Filter f;
  f.type_ = type;
  f.expression_ = std::string(text);
  if (type == ExpressionType::Tag) {
    f.tags_ = parseTagExpression(text);
    return f;
  }
  auto tree = sql::parse(text);
  if (!tree) return tree.error();
  f.sql_ = std::shared_ptr<const sql::Node>(std::move(tree.value()));
  return f;
}

Result<Filter> compileExpression(std::string_view type, std::string_view text) {
  auto t = parseExpressionType(type);
  if (!t) return makeError(ResponseCode::SUBSCRIPTION_PARSE_FAILED, "unknown expression type " + std::string(type));
  return compileExpression(*t, text);
}

}  // namespace rmq::filter
