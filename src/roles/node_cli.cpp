// rmqnode's command line (CLI11): --role, -c/--config, -n/--namesrvAddr, --print-config, -p, -m,
// --help, --version. The config file and the roles' rules are Node's (node.cpp).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "roles/node.h"
#include "tools/cli/cli_options.h"

namespace rmq::node {
namespace {

Result<std::vector<Role>> parseRoles(std::string_view text) {
  std::vector<Role> roles;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    auto name = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    Role r;
    if (name == "namesrv") r = Role::Namesrv;
    else if (name == "master") r = Role::Master;
    else if (name == "slave") r = Role::Slave;
    else return usageError(fmt::format("unknown role '{}' (expected namesrv, master, slave or namesrv,master)", name));
    if (std::find(roles.begin(), roles.end(), r) != roles.end()) return usageError(fmt::format("role '{}' given twice", name));
    roles.push_back(r);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  bool master = std::count(roles.begin(), roles.end(), Role::Master);
  bool slave = std::count(roles.begin(), roles.end(), Role::Slave);
  if (master && slave) return usageError("a process is either a master or a slave broker, not both");
  return roles;
}

// The command line, writing into `o` when parsed; `namesrv` is -n (optional: unset keeps the
// config file's namesrvAddr).
std::unique_ptr<CLI::App> makeApp(CliOptions& o, CLI::Option*& namesrv) {
  auto app = std::make_unique<CLI::App>("rmqnode: RocketMQ 4.x-compatible name server and broker", "rmqnode");
  app->set_help_flag();  // --help is a plain flag: main prints the help and exits 0
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app->add_option("--role", o.roleText, "roles this process runs: namesrv, master, slave, namesrv,master (dev mode)")
      ->option_text("namesrv|master|slave|namesrv,master")
      ->check(CLI::Validator(
          [](std::string& s) {
            auto r = parseRoles(s);
            return r ? std::string() : r.error().message;
          },
          ""));
  app->add_option("-c,--config", o.configFile, "config file: *.toml, or Java properties (*.properties, *.conf)")
      ->option_text("FILE");
  namesrv = app->add_option("-n,--namesrvAddr", "name server address list \"host:port;host:port\" (broker roles)")
                ->option_text("NAMESRV_ADDR");
  app->add_flag("--print-config", o.printConfig, "print the effective config as TOML and exit");
  app->add_flag("-p,--printConfigItem", o.printAllKeys, "print every config key as key=value and exit (mqbroker -p)");
  app->add_flag("-m,--printImportantConfig", o.printImportantKeys,
                "print the important config keys as key=value and exit (mqbroker -m)");
  app->add_flag("-h,--help", o.help, "print this help and exit");
  app->add_flag("-v,--version", o.version, "print the version and exit");
  app->footer("exit codes: 0 ok, 1 start-up failure, 2 usage or config error");
  return app;
}

}  // namespace

std::string usage() {
  CliOptions o;
  CLI::Option* namesrv = nullptr;
  return makeApp(o, namesrv)->help();
}

Result<CliOptions> parseArgs(int argc, char** argv) {
  CliOptions o;
  CLI::Option* namesrv = nullptr;
  auto app = makeApp(o, namesrv);
  auto tokens = tools::canonicalArgs(*app, argc, argv);  // also -c=FILE, -n=ADDR, -namesrvAddr ADDR
  std::vector<char*> args;
  for (auto& t : tokens) args.push_back(t.data());
  try {
    app->parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    return usageError(e.what());
  }
  if (namesrv->count() > 0) o.namesrvAddr = namesrv->as<std::string>();
  if (o.help || o.version) return o;
  if (o.roleText.empty()) {
    // As Java's mqbroker: a broker, master or slave by the config file's brokerRole (node.cpp).
    if (o.configFile.empty() && !o.printAllKeys && !o.printImportantKeys)
      return usageError("--role is required (or -c with a broker config, whose brokerRole chooses master or slave)");
    o.roleText = "master";
    o.roleFromConfig = true;
  }
  auto roles = parseRoles(o.roleText);
  if (!roles) return roles.error();
  o.roles = std::move(*roles);
  return o;
}

}  // namespace rmq::node
