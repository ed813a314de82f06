#pragma once
// rmqadmin verbs: each verb group file (topic_verbs.cpp, ...) registers its verbs with a
// VerbRegistrar with its options (tools::OptionSpec rows); main.cpp builds the command line from
// them (CLI11: validation, --help per verb), runs the verb and prints its Report.
// A verb reads its options first and returns 2 when ctx.badUsage() (main prints the problems and
// the verb's help); it returns 0 on success, or 1 after ctx.fail(...) explained the failure.
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "client/admin/admin_client.h"
#include "tools/cli/cli_options.h"
#include "tools/rmqadmin/report.h"

namespace rmq::admin {

struct VerbContext {
  VerbContext(std::string v, const tools::OptionValues& a, Report& r, bool j)
      : verb(std::move(v)), args(a), report(r), json(j) {}
  std::string verb;
  const tools::OptionValues& args;
  Report& report;
  bool json = false;
  std::function<client::AdminClient&()> admin;  // started on first use (-n / NAMESRV_ADDR)

  // Records an error for stderr (text) or the JSON "error" member; returns the exit code 1.
  int fail(const std::string& message, int code = 1);
  int fail(const Error& e) { return fail(e.message, e.code); }
  std::string errorMessage;
  int errorCode = 0;

  // Required option: its value, or empty after recording "missing option -x".
  std::string required(std::initializer_list<std::string> names);
  void usageError(std::string message) { usageErrors.push_back(std::move(message)); }
  bool badUsage() const { return !usageErrors.empty(); }
  std::vector<std::string> usageErrors;
};

using tools::OptionSpec;
using tools::ValueKind;

struct VerbSpec {
  std::string name;
  std::string summary;
  std::vector<OptionSpec> options;  // verb-specific; -n/--json/-h are common
  std::function<int(VerbContext&)> run;
};

std::map<std::string, VerbSpec>& verbs();
struct VerbRegistrar {
  explicit VerbRegistrar(VerbSpec spec) { verbs()[spec.name] = std::move(spec); }
};

// Helpers shared by verb groups.
// "2024-01-02 03:04:05,678" (local time); without the ",678" when !withMillis.
std::string formatTimestamp(int64_t epochMillis, bool withMillis = true);
// "20240102030405678" (local time): Java's UtilAll.timeMillisToHumanString.
std::string javaHumanTime(int64_t epochMillis);
// Parses "now", epoch millis, or "yyyy-MM-dd#HH:mm:ss:SSS" (mqadmin's resetOffsetByTime form).
std::optional<int64_t> parseTimestamp(const std::string& text);

}  // namespace rmq::admin
