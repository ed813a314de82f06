#pragma once
// Command lines of rmqadmin and rmqbench over CLI11. A tool is a set of subcommands (rmqadmin's
// verbs, rmqbench's benchmarks); each declares its options as OptionSpec rows, CLI11 parses and
// validates them (integers, numbers, booleans, choices, an environment fallback such as
// NAMESRV_ADDR for -n) and generates each subcommand's --help; the subcommand then reads what was
// given through OptionValues under any of the option's names ({"t", "topic"}).
// CLI11 is included only by cli_options.cpp: it is a large header.
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace CLI {
class App;
}

namespace rmq::tools {

enum class ValueKind { Text, Integer, Number, Boolean };

struct OptionSpec {
  // Names then the value's placeholder: "-t, --topic <topic>". Without a placeholder the option
  // is a flag ("--json", "-c, --clusterModel").
  std::string flag;
  std::string text;  // help line
  ValueKind kind = ValueKind::Text;
  std::vector<std::string> choices;  // allowed values of a Text option (empty: any)
  std::string envName;               // the value when the option is not given
};

// What a command line gave, by every name of each option (without dashes).
class OptionValues {
 public:
  bool has(const std::string& name) const { return values_.count(name) || flags_.count(name); }
  bool flag(const std::string& name) const { return flags_.count(name) != 0; }
  // The value of the first of `names` given (aliases: {"n", "namesrvAddr"}).
  std::optional<std::string> get(std::initializer_list<std::string> names) const;
  std::string get(std::initializer_list<std::string> names, std::string dflt) const;
  // Integer / Number options were validated by the parser; dflt when absent.
  int64_t getInt(std::initializer_list<std::string> names, int64_t dflt) const;
  double getDouble(std::initializer_list<std::string> names, double dflt) const;

  void set(const std::string& name, std::string value) { values_[name] = std::move(value); }
  void setFlag(const std::string& name) { flags_.insert(name); }

  // Problems a subcommand finds in valid-looking options (conflicts, ranges): the tool prints
  // them with the subcommand's help and exits 2.
  void addError(std::string message) { errors_.push_back(std::move(message)); }
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
  std::vector<std::string> errors_;
};

// The name among `candidates` closest to a mistyped `word` (at most about a third of its letters
// off, case ignored), or "" when none is close.
std::string closestName(const std::string& word, const std::vector<std::string>& candidates);

// argv with mqadmin's (commons-cli) spellings of `app`'s options rewritten to CLI11's, from
// argv[from] on: a long name after one dash ("-topic T", "-namesrvAddr=A"), a short name after two
// ("--t T"), "-t=T" for "-t T". CLI11 would read "-topic" as -t with the value "opic" and "-t=T"
// as the value "=T". Other tokens are kept.
std::vector<std::string> canonicalArgs(const CLI::App& app, int argc, char** argv, int from = 1);

// One executable's subcommands. Exit codes of what it answers itself: 0 for help, 2 for a usage
// error (printed to stderr with the relevant help).
class SubcommandCli {
 public:
  // tool: "rmqadmin"; noun: "verb" / "subcommand" (in messages).
  SubcommandCli(std::string tool, std::string noun, std::string description);
  SubcommandCli(SubcommandCli&&) noexcept;
  ~SubcommandCli();

  void add(const std::string& name, const std::string& summary, const std::vector<OptionSpec>& options);

  struct Invocation {
    std::string name;
    OptionValues values;
  };
  // `tool` alone: the list on stderr, 2. `tool -h|--help|help`: the list, 0. `tool help NAME` and
  // `tool NAME -h`: NAME's help, 0. An unknown NAME (with a suggestion), an unknown or invalid
  // option: 2. Otherwise the chosen subcommand and its options.
  std::variant<int, Invocation> parse(int argc, char** argv);

  // Prints "tool name: problem" lines and NAME's help to stderr; returns 2.
  int usageError(const std::string& name, const std::vector<std::string>& problems) const;
  std::string help(const std::string& name) const;  // "" = the list of subcommands

 private:
  CLI::App* find(const std::string& name) const;
  int unknownName(const std::string& name) const;

  std::string tool_, noun_;
  std::unique_ptr<CLI::App> app_;
};

}  // namespace rmq::tools
