#pragma once
// The config registry seam. Every config struct (NamesrvConfig, BrokerConfig, StoreConfig, ...) is a
// plain struct whose members carry their defaults, plus a member `void visit(FieldVisitor& v)` that
// lists each field once: name (= RocketMQ's key, also the TOML key), description, bounds/choices,
// accepted alias spellings. Loaders (TOML, .properties), --print-config, validation and
// UPDATE_BROKER_CONFIG are visitors, so a key is declared in exactly one place.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rmq::config {

struct FieldInfo {
  std::string_view name;
  std::string_view description;
  std::optional<int64_t> min = std::nullopt;   // integers: inclusive bounds
  std::optional<int64_t> max = std::nullopt;
  std::vector<std::string_view> choices = {};  // strings: allowed values (empty = any)
  std::vector<std::string_view> aliases = {};  // other accepted spellings of the key
  // Integers: a value outside [min, max] is clamped into it with a warning instead of refused
  // (the keys Java clamps at use, so a Java config with such a value still starts).
  bool clamp = false;
};

class FieldVisitor {
 public:
  virtual ~FieldVisitor() = default;
  virtual void field(const FieldInfo& info, bool& value) = 0;
  virtual void field(const FieldInfo& info, int32_t& value) = 0;
  virtual void field(const FieldInfo& info, int64_t& value) = 0;
  virtual void field(const FieldInfo& info, double& value) = 0;
  virtual void field(const FieldInfo& info, std::string& value) = 0;
};

}  // namespace rmq::config
