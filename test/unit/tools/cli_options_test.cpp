// Unit tests of the tools' command-line layer (src/tools/cli/cli_options.*, over CLI11): option forms
// and aliases, validation of integers, booleans and choices, the environment fallback, unknown
// options and subcommands with suggestions, help and exit codes.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tools/cli/cli_options.h"

using rmq::tools::OptionSpec;
using rmq::tools::SubcommandCli;
using rmq::tools::ValueKind;

namespace {

SubcommandCli makeCli() {
  SubcommandCli cli("tool", "verb", "a test tool");
  cli.add("updateTopic", "create a topic",
          {{"-t, --topic <topic>", "topic"},
           {"-r, --readQueueNums <n>", "read queues", ValueKind::Integer},
           {"-o, --order <bool>", "order", ValueKind::Boolean},
           {"--from <where>", "start", ValueKind::Text, {"last", "first"}},
           {"-d <seconds>", "duration", ValueKind::Number},
           {"-n, --namesrvAddr <addrs>", "name servers", ValueKind::Text, {}, "RMQ_CLI_TEST_ADDR"},
           {"--json", "json output"}});
  cli.add("topicList", "list topics", {});
  return cli;
}

std::variant<int, SubcommandCli::Invocation> parse(SubcommandCli& cli, std::vector<std::string> args) {
  args.insert(args.begin(), "tool");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return cli.parse(static_cast<int>(argv.size()), argv.data());
}

int exitCode(const std::variant<int, SubcommandCli::Invocation>& r) {
  return std::holds_alternative<int>(r) ? std::get<int>(r) : -1;
}

}  // namespace

TEST_CASE("options: short, long, attached and = forms; values under every alias; last one wins") {
  auto cli = makeCli();
  auto r = parse(cli, {"updateTopic", "-tT1", "--readQueueNums=8", "-o", "TRUE", "--json", "-d", "1.5", "-t", "T2"});
  REQUIRE(std::holds_alternative<SubcommandCli::Invocation>(r));
  auto& inv = std::get<SubcommandCli::Invocation>(r);
  CHECK(inv.name == "updateTopic");
  CHECK(inv.values.get({"t"}).value() == "T2");
  CHECK(inv.values.get({"topic"}).value() == "T2");
  CHECK(inv.values.getInt({"r", "readQueueNums"}, 0) == 8);
  CHECK(inv.values.get({"order"}).value() == "TRUE");
  CHECK(inv.values.getDouble({"d"}, 0) == doctest::Approx(1.5));
  CHECK(inv.values.flag("json"));
  CHECK_FALSE(inv.values.has("from"));
  CHECK(inv.values.get({"from"}, "last") == "last");
}

TEST_CASE("options: mqadmin's one-dash long names and two-dash short names; -x=value") {
  auto cli = makeCli();
  auto r = parse(cli, {"updateTopic", "-topic", "T1", "-readQueueNums=4", "--o", "false", "-namesrvAddr", "A:1",
                       "-d=2", "-json"});
  REQUIRE(std::holds_alternative<SubcommandCli::Invocation>(r));
  auto& inv = std::get<SubcommandCli::Invocation>(r);
  CHECK(inv.values.get({"t"}).value() == "T1");
  CHECK(inv.values.getInt({"r"}, 0) == 4);
  CHECK(inv.values.get({"o"}).value() == "false");
  CHECK(inv.values.get({"n"}).value() == "A:1");
  CHECK(inv.values.getDouble({"d"}, 0) == doctest::Approx(2));
  CHECK(inv.values.flag("json"));
  auto eq = parse(cli, {"updateTopic", "-t=T2", "--t=T3", "-r", "-1"});
  REQUIRE(std::holds_alternative<SubcommandCli::Invocation>(eq));
  CHECK(std::get<SubcommandCli::Invocation>(eq).values.get({"topic"}).value() == "T3");
  CHECK(std::get<SubcommandCli::Invocation>(eq).values.getInt({"r"}, 0) == -1);
  auto attached = parse(cli, {"updateTopic", "-t=T2"});
  REQUIRE(std::holds_alternative<SubcommandCli::Invocation>(attached));
  CHECK(std::get<SubcommandCli::Invocation>(attached).values.get({"t"}).value() == "T2");
}

TEST_CASE("options: bad integers, booleans, numbers and choices are usage errors (exit 2)") {
  auto cli = makeCli();
  CHECK(exitCode(parse(cli, {"updateTopic", "-r", "abc"})) == 2);
  CHECK(exitCode(parse(cli, {"updateTopic", "-r", "8x"})) == 2);
  CHECK(exitCode(parse(cli, {"updateTopic", "-o", "yes"})) == 2);
  CHECK(exitCode(parse(cli, {"updateTopic", "-d", "soon"})) == 2);
  CHECK(exitCode(parse(cli, {"updateTopic", "--from", "middle"})) == 2);
  CHECK(exitCode(parse(cli, {"updateTopic", "-t"})) == 2);  // value missing
  CHECK(std::holds_alternative<SubcommandCli::Invocation>(parse(cli, {"updateTopic", "--from", "first"})));
}

TEST_CASE("options: unknown options and stray arguments are usage errors") {
  auto cli = makeCli();
  CHECK(exitCode(parse(cli, {"updateTopic", "--bogus"})) == 2);
  CHECK(exitCode(parse(cli, {"updateTopic", "--topik", "T"})) == 2);
  CHECK(exitCode(parse(cli, {"topicList", "stray"})) == 2);
}

TEST_CASE("subcommands: list, help, unknown names; exit codes") {
  auto cli = makeCli();
  CHECK(exitCode(parse(cli, {})) == 2);
  CHECK(exitCode(parse(cli, {"--help"})) == 0);
  CHECK(exitCode(parse(cli, {"help"})) == 0);
  CHECK(exitCode(parse(cli, {"help", "updateTopic"})) == 0);
  CHECK(exitCode(parse(cli, {"help", "noSuchVerb"})) == 2);
  CHECK(exitCode(parse(cli, {"updateTopic", "-h"})) == 0);
  CHECK(exitCode(parse(cli, {"updateTopik"})) == 2);
  auto help = cli.help("updateTopic");
  CHECK(help.find("-t, --topic <topic>") != std::string::npos);
  CHECK(help.find("tool updateTopic") != std::string::npos);
  CHECK(cli.help("").find("topicList") != std::string::npos);
}

TEST_CASE("options: the environment is the fallback of an option that names a variable") {
  auto cli = makeCli();
  ::setenv("RMQ_CLI_TEST_ADDR", "127.0.0.1:1", 1);
  auto fromEnv = parse(cli, {"updateTopic"});
  REQUIRE(std::holds_alternative<SubcommandCli::Invocation>(fromEnv));
  CHECK(std::get<SubcommandCli::Invocation>(fromEnv).values.get({"n"}).value() == "127.0.0.1:1");
  auto given = parse(cli, {"updateTopic", "-n", "127.0.0.1:2"});
  REQUIRE(std::holds_alternative<SubcommandCli::Invocation>(given));
  CHECK(std::get<SubcommandCli::Invocation>(given).values.get({"namesrvAddr"}).value() == "127.0.0.1:2");
  ::unsetenv("RMQ_CLI_TEST_ADDR");
}

TEST_CASE("closestName suggests a near name only") {
  std::vector<std::string> verbs{"updateTopic", "deleteTopic", "topicList"};
  CHECK(rmq::tools::closestName("updateTopik", verbs) == "updateTopic");
  CHECK(rmq::tools::closestName("UPDATETOPIC", verbs) == "updateTopic");
  CHECK(rmq::tools::closestName("topiclist", verbs) == "topicList");
  CHECK(rmq::tools::closestName("zzz", verbs).empty());
  CHECK(rmq::tools::closestName("--topik", {"-t", "--topic"}) == "--topic");
}
