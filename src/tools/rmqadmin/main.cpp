// rmqadmin: mqadmin's verbs against rmqnode (or Apache RocketMQ). `rmqadmin` lists the verbs,
// `rmqadmin help VERB` shows a verb's options. Common options: -n "host:port;host:port" (default
// $NAMESRV_ADDR), --json (one JSON object on stdout), -h. Exit code 0 on success, 1 when the
// operation failed, 2 on a usage error.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <fmt/format.h>

#include "common/log.h"
#include "common/json.h"
#include "tools/rmqadmin/verb.h"

namespace rmq::admin {

std::map<std::string, VerbSpec>& verbs() {
  static std::map<std::string, VerbSpec> v;
  return v;
}

int VerbContext::fail(const std::string& message, int code) {
  errorMessage = message;
  errorCode = code;
  return 1;
}

std::string VerbContext::required(std::initializer_list<std::string> names) {
  if (auto v = args.get(names); v && !v->empty()) return *v;
  usageError(fmt::format("missing option -{}", *names.begin()));
  return {};
}

namespace {

int listVerbs(FILE* out, int code) {
  std::fprintf(out, "usage: rmqadmin <verb> [-n namesrvAddr] [--json] [options]\n"
                    "       rmqadmin help <verb>\n\nverbs:\n");
  for (auto& [name, v] : verbs()) std::fprintf(out, "  %-22s %s\n", name.c_str(), v.summary.c_str());
  return code;
}

int verbHelp(FILE* out, const VerbSpec& v, int code) {
  std::fprintf(out, "usage: rmqadmin %s [options]\n%s\n\noptions:\n", v.name.c_str(), v.summary.c_str());
  auto row = [&](const std::string& f, const std::string& t) { std::fprintf(out, "  %-32s %s\n", f.c_str(), t.c_str()); };
  for (auto& o : v.options) row(o.flag, o.text);
  row("-n, --namesrvAddr <addrs>", "name servers, \"host:port;host:port\" (default $NAMESRV_ADDR)");
  row("--json", "print one JSON object instead of tables");
  row("-h, --help", "this help");
  return code;
}

}  // namespace
}  // namespace rmq::admin

int main(int argc, char** argv) {
  using namespace rmq::admin;
  auto level = rmq::log::Level::Error;
  if (const char* env = std::getenv("RMQ_LOG_LEVEL")) rmq::log::parseLevel(env, level);
  rmq::log::setLevel(level);
  if (argc < 2) return listVerbs(stderr, 2);
  std::string verb = argv[1];
  if (verb == "-h" || verb == "--help") return listVerbs(stdout, 0);
  if (verb == "help") {
    if (argc < 3) return listVerbs(stdout, 0);
    auto it = verbs().find(argv[2]);
    if (it == verbs().end()) {
      std::fprintf(stderr, "rmqadmin: unknown verb '%s'\n", argv[2]);
      return listVerbs(stderr, 2);
    }
    return verbHelp(stdout, it->second, 0);
  }
  auto it = verbs().find(verb);
  if (it == verbs().end()) {
    std::fprintf(stderr, "rmqadmin: unknown verb '%s'\n", verb.c_str());
    return listVerbs(stderr, 2);
  }
  const VerbSpec& spec = it->second;
  auto valueOpts = spec.valueOpts;
  valueOpts.insert({"n", "namesrvAddr"});
  auto flagOpts = spec.flagOpts;
  flagOpts.insert({"json", "h", "help"});
  rmq::tools::CliArgs args(argc - 1, argv + 1, valueOpts, flagOpts);
  if (args.flag("h") || args.flag("help")) return verbHelp(stdout, spec, 0);
  if (!args.errors().empty()) {
    for (auto& e : args.errors()) std::fprintf(stderr, "rmqadmin %s: %s\n", verb.c_str(), e.c_str());
    return verbHelp(stderr, spec, 2);
  }

  Report report;
  std::unique_ptr<rmq::client::AdminClient> admin;
  VerbContext ctx(verb, args, report, args.flag("json"));
  ctx.admin = [&]() -> rmq::client::AdminClient& {
    if (!admin) {
      rmq::client::ClientConfig cfg;
      cfg.namesrvAddr = args.get({"n", "namesrvAddr"}, "");
      cfg.instanceName = fmt::format("rmqadmin-{}", ::getpid());
      admin = std::make_unique<rmq::client::AdminClient>(cfg);
      if (auto r = admin->start(); !r) {
        std::fprintf(stderr, "rmqadmin %s: %s\n", verb.c_str(), r.error().message.c_str());
        std::exit(1);
      }
    }
    return *admin;
  };
  int rc = spec.run(ctx);
  if (rc == 2 || ctx.badUsage()) {
    for (auto& e : ctx.usageErrors) std::fprintf(stderr, "rmqadmin %s: %s\n", verb.c_str(), e.c_str());
    for (auto& e : args.errors()) std::fprintf(stderr, "rmqadmin %s: %s\n", verb.c_str(), e.c_str());
    if (admin) admin->shutdown();
    return verbHelp(stderr, spec, 2);
  }
  if (rc == 0) {
    report.print(ctx.json);
  } else if (ctx.json) {
    std::string out = R"({"error":{"code":)" + std::to_string(ctx.errorCode) + R"(,"message":)";
    rmq::json::appendQuoted(out, ctx.errorMessage);
    out += "}}\n";
    std::fputs(out.c_str(), stdout);
  } else {
    report.print(false);  // whatever succeeded before the failure (e.g. some brokers)
    std::fprintf(stderr, "rmqadmin %s: %s\n", verb.c_str(), ctx.errorMessage.c_str());
  }
  if (admin) admin->shutdown();
  return rc;
}
