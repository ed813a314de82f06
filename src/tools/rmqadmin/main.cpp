// rmqadmin: mqadmin's verbs against rmqnode (or Apache RocketMQ). `rmqadmin` lists the verbs,
// `rmqadmin help VERB` (or `rmqadmin VERB --help`) shows a verb's options. Common options:
// -n "host:port;host:port" (default $NAMESRV_ADDR), --json (one JSON object on stdout), -h.
// Exit code 0 on success, 1 when the operation failed, 2 on a usage error.
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

#include "common/log.h"
#include "common/json.h"
#include "tools/rmqadmin/verb_util.h"

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

std::vector<OptionSpec> withCommonOptions(std::vector<OptionSpec> options) {
  options.push_back({"-n, --namesrvAddr <addrs>", "name servers, \"host:port;host:port\" (default $NAMESRV_ADDR)",
                     ValueKind::Text, {}, "NAMESRV_ADDR"});
  options.push_back({"--access-key <key>", "ACL access key: sign every request (default $RMQ_ACCESS_KEY)",
                     ValueKind::Text, {}, "RMQ_ACCESS_KEY"});
  options.push_back({"--secret-key <key>", "ACL secret key (default $RMQ_SECRET_KEY)", ValueKind::Text, {},
                     "RMQ_SECRET_KEY"});
  options.push_back({"--tls", "connect with TLS (Java -Dtls.enable=true; tls.* client keys from --tls-config)"});
  options.push_back({"--tls-config <file>", "Java tls.properties (tls.config.file; skipped when missing)",
                     ValueKind::Text});
  options.push_back({"--json", "print one JSON object instead of tables"});
  return options;
}

}  // namespace
}  // namespace rmq::admin

int main(int argc, char** argv) {
  using namespace rmq::admin;
  auto level = rmq::log::Level::Error;
  if (const char* env = std::getenv("RMQ_LOG_LEVEL")) rmq::log::parseLevel(env, level);
  rmq::log::setLevel(level);
  rmq::tools::SubcommandCli cli("rmqadmin", "verb", "mqadmin's verbs against rmqnode (or Apache RocketMQ)");
  for (auto& [name, v] : verbs()) cli.add(name, v.summary, withCommonOptions(v.options));
  auto parsed = cli.parse(argc, argv);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  auto& invocation = std::get<rmq::tools::SubcommandCli::Invocation>(parsed);
  const std::string& verb = invocation.name;
  const rmq::tools::OptionValues& args = invocation.values;
  const VerbSpec& spec = verbs().at(verb);

  Report report;
  std::unique_ptr<rmq::client::AdminClient> admin;
  VerbContext ctx(verb, args, report, args.flag("json"));
  ctx.admin = [&]() -> rmq::client::AdminClient& {
    if (!admin) {
      admin = std::make_unique<rmq::client::AdminClient>(toolClientConfig(ctx));
      if (auto r = admin->start(); !r) {
        std::fprintf(stderr, "rmqadmin %s: %s\n", verb.c_str(), r.error().message.c_str());
        std::exit(1);
      }
    }
    return *admin;
  };
  int rc = spec.run(ctx);
  if (rc == 2 || ctx.badUsage()) {
    if (admin) admin->shutdown();
    return cli.usageError(verb, ctx.usageErrors);
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
