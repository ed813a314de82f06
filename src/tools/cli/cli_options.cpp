#include "tools/cli/cli_options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace rmq::tools {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Help rows spelled like mqadmin's: "-t, --topic <topic>".
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* opt, bool positional) const override {
    std::string names = CLI::Formatter::make_option_name(opt, positional);
    std::string out;
    for (char c : names) out += c == ',' ? std::string(", ") : std::string(1, c);
    return out;
  }
};

std::optional<int64_t> toInt(const std::string& s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> toDouble(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return d;
}

CLI::Validator valueCheck(const OptionSpec& spec) {
  switch (spec.kind) {
    case ValueKind::Integer:
      return CLI::Validator([](std::string& s) { return toInt(s) ? "" : "expects an integer, got '" + s + "'"; }, "");
    case ValueKind::Number:
      return CLI::Validator([](std::string& s) { return toDouble(s) ? "" : "expects a number, got '" + s + "'"; }, "");
    case ValueKind::Boolean:
      return CLI::Validator(
          [](std::string& s) {
            auto l = lower(s);
            return l == "true" || l == "false" ? "" : "expects true or false, got '" + s + "'";
          },
          "");
    case ValueKind::Text:
      break;
  }
  auto choices = spec.choices;
  return CLI::Validator(
      [choices](std::string& s) -> std::string {
        if (choices.empty() || std::find(choices.begin(), choices.end(), s) != choices.end()) return "";
        std::string list;
        for (auto& c : choices) list += (list.empty() ? "" : ", ") + c;
        return "expects one of " + list + ", got '" + s + "'";
      },
      "");
}

void addOption(CLI::App& app, const OptionSpec& spec) {
  auto lt = spec.flag.find('<');
  std::string names = spec.flag.substr(0, lt);
  names.erase(std::remove_if(names.begin(), names.end(), [](unsigned char c) { return std::isspace(c); }), names.end());
  if (lt == std::string::npos) {
    app.add_flag(names)->description(spec.text);
    return;
  }
  auto* opt = app.add_option(names)->description(spec.text)->option_text(spec.flag.substr(lt));
  opt->check(valueCheck(spec));
  if (!spec.envName.empty()) opt->envname(spec.envName);
}

OptionValues collect(const CLI::App& sub) {
  OptionValues values;
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->count() == 0 || opt == sub.get_help_ptr()) continue;
    std::vector<std::string> names = opt->get_snames();
    names.insert(names.end(), opt->get_lnames().begin(), opt->get_lnames().end());
    for (auto& n : names) {
      if (opt->get_expected_max() == 0) values.setFlag(n);  // a flag
      else values.set(n, opt->as<std::string>());
    }
  }
  return values;
}

// Every spelling of the options of `sub`, for suggestions ("--topic", "-t").
std::vector<std::string> optionSpellings(const CLI::App& sub) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : sub.get_options()) {
    for (auto& s : opt->get_snames()) out.push_back("-" + s);
    for (auto& l : opt->get_lnames()) out.push_back("--" + l);
  }
  return out;
}

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Appends `token` in CLI11's spelling to `out` (see canonicalArgs).
void appendCanonical(const CLI::App& sub, const std::string& token, std::vector<std::string>& out) {
  if (token.size() >= 3 && token[0] == '-') {
    bool twoDashes = token[1] == '-';
    size_t start = twoDashes ? 2 : 1;
    size_t eq = token.find('=');
    std::string name = token.substr(start, eq == std::string::npos ? std::string::npos : eq - start);
    for (const CLI::Option* opt : sub.get_options()) {
      auto& shorts = opt->get_snames();
      auto& longs = opt->get_lnames();
      if (std::find(longs.begin(), longs.end(), name) != longs.end()) {
        out.push_back("--" + token.substr(start));
        return;
      }
      if (std::find(shorts.begin(), shorts.end(), name) != shorts.end()) {
        out.push_back("-" + name);
        if (eq != std::string::npos) out.push_back(token.substr(eq + 1));
        return;
      }
    }
  }
  out.push_back(token);
}

}  // namespace

std::vector<std::string> canonicalArgs(const CLI::App& app, int argc, char** argv, int from) {
  std::vector<std::string> out(argv, argv + std::min(from, argc));
  for (int i = from; i < argc; ++i) appendCanonical(app, argv[i], out);
  return out;
}

std::optional<std::string> OptionValues::get(std::initializer_list<std::string> names) const {
  for (auto& n : names)
    if (auto it = values_.find(n); it != values_.end()) return it->second;
  return std::nullopt;
}

std::string OptionValues::get(std::initializer_list<std::string> names, std::string dflt) const {
  auto v = get(names);
  return v ? *v : dflt;
}

int64_t OptionValues::getInt(std::initializer_list<std::string> names, int64_t dflt) const {
  auto v = get(names);
  auto n = v ? toInt(*v) : std::nullopt;
  return n ? *n : dflt;
}

double OptionValues::getDouble(std::initializer_list<std::string> names, double dflt) const {
  auto v = get(names);
  auto d = v ? toDouble(*v) : std::nullopt;
  return d ? *d : dflt;
}

std::string closestName(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t bestDistance = std::max<size_t>(1, word.size() / 3) + 1;
  for (auto& c : candidates) {
    size_t d = editDistance(lower(word), lower(c));
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  return best;
}

SubcommandCli::SubcommandCli(std::string tool, std::string noun, std::string description)
    : tool_(std::move(tool)), noun_(std::move(noun)), app_(std::make_unique<CLI::App>(description, tool_)) {
  auto formatter = std::make_shared<HelpFormatter>();
  formatter->column_width(36);
  std::string upper = noun_;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  formatter->label("SUBCOMMAND", upper);
  app_->formatter(formatter);
  app_->footer("\n" + tool_ + " help <" + noun_ + "> or " + tool_ + " <" + noun_ + "> --help shows its options.");
}

SubcommandCli::SubcommandCli(SubcommandCli&&) noexcept = default;
SubcommandCli::~SubcommandCli() = default;

void SubcommandCli::add(const std::string& name, const std::string& summary, const std::vector<OptionSpec>& options) {
  auto* sub = app_->add_subcommand(name, summary);
  std::string title = noun_ + "s";
  title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
  sub->group(title);     // the list's heading: "Verbs:"
  sub->footer("");       // the list's footer, not inherited
  sub->allow_extras();  // reported by parse() as unknown options, with a suggestion
  sub->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  for (auto& o : options) addOption(*sub, o);
}

CLI::App* SubcommandCli::find(const std::string& name) const {
  for (auto* sub : app_->get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() == name) return sub;
  return nullptr;
}

std::string SubcommandCli::help(const std::string& name) const {
  // Not app_->help(): after a parse it describes the chosen subcommand instead of the list.
  auto* sub = name.empty() ? nullptr : find(name);
  if (!sub) return app_->get_formatter()->make_help(app_.get(), tool_, CLI::AppFormatMode::Normal);
  return sub->help(tool_);
}

int SubcommandCli::unknownName(const std::string& name) const {
  std::vector<std::string> names;
  for (auto* sub : app_->get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  std::string suggestion = closestName(name, names);
  if (suggestion.empty()) {
    std::fprintf(stderr, "%s: unknown %s '%s'\n%s", tool_.c_str(), noun_.c_str(), name.c_str(), help("").c_str());
  } else {
    std::fprintf(stderr, "%s: unknown %s '%s'; did you mean '%s'?\n", tool_.c_str(), noun_.c_str(), name.c_str(),
                 suggestion.c_str());
  }
  return 2;
}

int SubcommandCli::usageError(const std::string& name, const std::vector<std::string>& problems) const {
  for (auto& p : problems) std::fprintf(stderr, "%s %s: %s\n", tool_.c_str(), name.c_str(), p.c_str());
  std::fputs(help(name).c_str(), stderr);
  return 2;
}

std::variant<int, SubcommandCli::Invocation> SubcommandCli::parse(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(help("").c_str(), stderr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "-h" || name == "--help" || name == "help") {
    if (name == "help" && argc > 2) {
      if (!find(argv[2])) return unknownName(argv[2]);
      name = argv[2];
    } else {
      name.clear();
    }
    std::fputs(help(name).c_str(), stdout);
    return 0;
  }
  CLI::App* sub = find(name);
  if (!sub) return unknownName(name);
  std::vector<std::string> tokens = canonicalArgs(*sub, argc, argv, 2);
  std::vector<char*> args;
  for (auto& t : tokens) args.push_back(t.data());
  try {
    app_->parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp&) {
    std::fputs(help(name).c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    return usageError(name, {e.what()});
  }
  std::vector<std::string> problems;
  for (auto& extra : sub->remaining()) {
    if (extra.size() < 2 || extra[0] != '-') {
      problems.push_back("unexpected argument '" + extra + "'");
      continue;
    }
    std::string option = extra.substr(0, extra.find('='));
    std::string suggestion = closestName(option, optionSpellings(*sub));
    problems.push_back("unknown option " + option + (suggestion.empty() ? "" : "; did you mean " + suggestion + "?"));
  }
  if (!problems.empty()) return usageError(name, problems);
  return Invocation{name, collect(*sub)};
}

}  // namespace rmq::tools
