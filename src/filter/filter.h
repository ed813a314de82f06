#pragma once
// Message filters shared by the broker (pull-time filtering) and the client (subscription data,
// client-side tag re-check). Compile once per subscription, then match per message; matching
// allocates nothing. A Filter is immutable and safe to share between threads.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "filter/tag_expression.h"

namespace rmq::filter {

enum class ExpressionType { Tag, Sql92 };

// null/empty/"TAG" -> Tag, "SQL92" -> Sql92 (case-sensitive like Java's ExpressionType).
std::optional<ExpressionType> parseExpressionType(std::string_view name);
const char* expressionTypeName(ExpressionType type);  // "TAG" / "SQL92"

// Read access to a message's properties for SQL92 evaluation.
class PropertyLookup {
 public:
  virtual ~PropertyLookup() = default;
  virtual std::optional<std::string_view> get(std::string_view name) const = 0;
};

// Looks names up directly in the stored properties string (§4.5: name 0x01 value 0x02 ...),
// without building a map. Items with an empty name or value are ignored, as Java does.
class RawProperties final : public PropertyLookup {
 public:
  explicit RawProperties(std::string_view encoded) : encoded_(encoded) {}
  std::optional<std::string_view> get(std::string_view name) const override;

 private:
  std::string_view encoded_;
};

// Adapter for any map-like container with find(key) returning pair<key, string-like>.
template <class Map>
class MapProperties final : public PropertyLookup {
 public:
  explicit MapProperties(const Map& map) : map_(map) {}
  std::optional<std::string_view> get(std::string_view name) const override {
    auto it = map_.find(typename Map::key_type(name));
    if (it == map_.end()) return std::nullopt;
    return std::string_view(it->second);
  }

 private:
  const Map& map_;
};

namespace sql { struct Node; }

class Filter {
 public:
  ExpressionType type() const { return type_; }
  const std::string& expression() const { return expression_; }
  // Tag filters: the parsed tags and their hash codes (empty = match all).
  const TagExpression& tags() const { return tags_; }
  bool matchAll() const { return type_ == ExpressionType::Tag && tags_.matchAll(); }

  // ConsumeQueue-level check on the stored tags hash code. SQL92 filters always pass here.
  bool matchesTagsCode(int64_t tagsCode) const;
  // Full check: tag filters compare the TAGS string exactly (messages without tags don't match
  // a non-"*" expression); SQL92 filters evaluate against the properties.
  bool matches(std::string_view tags, const PropertyLookup& properties) const;
  bool matchesTags(std::string_view tags) const;
  bool matchesProperties(const PropertyLookup& properties) const;

 private:
  friend Result<Filter> compileExpression(ExpressionType, std::string_view);
  ExpressionType type_ = ExpressionType::Tag;
  std::string expression_;
  TagExpression tags_;
  std::shared_ptr<const sql::Node> sql_;
};

// Tag expressions never fail; SQL92 errors carry SUBSCRIPTION_PARSE_FAILED (23) and a message
// naming the position.
Result<Filter> compileExpression(ExpressionType type, std::string_view text);
// Same, taking the wire expressionType (null/empty/"TAG"/"SQL92"); unknown types are code 23.
Result<Filter> compileExpression(std::string_view type, std::string_view text);

}  // namespace rmq::filter
