#pragma once
// Command-line options shared by rmqadmin and rmqbench (header-only: each tool is its own
// executable). Accepts `-n value`, `-nvalue`, `--name value`, `--name=value` and bare flags.
// A tool declares which options take a value; everything else that starts with '-' is a flag.
// Unknown options are reported by check() so a typo is an error, not a silently ignored flag.
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace rmq::tools {

class CliArgs {
 public:
  // valueOpts / flagOpts: option names without dashes ("n", "namesrvAddr", "json").
  CliArgs(int argc, char** argv, std::set<std::string> valueOpts, std::set<std::string> flagOpts)
      : valueOpts_(std::move(valueOpts)), flagOpts_(std::move(flagOpts)) {
    for (int i = 1; i < argc; ++i) {
      std::string_view a = argv[i];
      if (a.size() < 2 || a[0] != '-' || a == "--") {
        positional_.emplace_back(a);
        continue;
      }
      std::string_view name = a.substr(a[1] == '-' ? 2 : 1);
      std::optional<std::string> inlineValue;
      if (auto eq = name.find('='); eq != std::string_view::npos) {
        inlineValue = std::string(name.substr(eq + 1));
        name = name.substr(0, eq);
      } else if (a[1] != '-' && name.size() > 1 && !valueOpts_.count(std::string(name)) &&
                 valueOpts_.count(std::string(name.substr(0, 1)))) {
        inlineValue = std::string(name.substr(1));  // -n127.0.0.1:9876
        name = name.substr(0, 1);
      }
      std::string key(name);
      if (valueOpts_.count(key)) {
        if (inlineValue) values_[key] = *inlineValue;
        else if (i + 1 < argc) values_[key] = argv[++i];
        else errors_.push_back("option -" + key + " needs a value");
      } else if (flagOpts_.count(key)) {
        flags_.insert(key);
      } else {
        errors_.push_back("unknown option " + std::string(a));
      }
    }
  }

  // Empty when every option was known and had its value; else one message per problem.
  const std::vector<std::string>& errors() const { return errors_; }
  void addError(std::string message) { errors_.push_back(std::move(message)); }

  bool has(const std::string& name) const { return values_.count(name) || flags_.count(name); }
  bool flag(const std::string& name) const { return flags_.count(name) != 0; }
  // The value of the first of `names` given (aliases: {"n", "namesrvAddr"}).
  std::optional<std::string> get(std::initializer_list<std::string> names) const {
    for (auto& n : names)
      if (auto it = values_.find(n); it != values_.end()) return it->second;
    return std::nullopt;
  }
  std::string get(std::initializer_list<std::string> names, std::string dflt) const {
    auto v = get(names);
    return v ? *v : dflt;
  }
  // Integer value; records an error (and returns dflt) when present but not a number.
  int64_t getInt(std::initializer_list<std::string> names, int64_t dflt) {
    auto v = get(names);
    if (!v) return dflt;
    int64_t out = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || p != v->data() + v->size()) {
      errors_.push_back("option -" + std::string(*names.begin()) + " expects an integer, got '" + *v + "'");
      return dflt;
    }
    return out;
  }
  double getDouble(std::initializer_list<std::string> names, double dflt) {
    auto v = get(names);
    if (!v) return dflt;
    try {
      size_t used = 0;
      double d = std::stod(*v, &used);
      if (used == v->size()) return d;
    } catch (...) {
    }
    errors_.push_back("option -" + std::string(*names.begin()) + " expects a number, got '" + *v + "'");
    return dflt;
  }
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::set<std::string> valueOpts_, flagOpts_;
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
  std::vector<std::string> positional_;
  std::vector<std::string> errors_;
};

}  // namespace rmq::tools
