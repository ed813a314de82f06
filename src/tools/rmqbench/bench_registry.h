#pragma once
// rmqbench subcommands register themselves here (one file per benchmark) with their options, so
// adding a benchmark needs no edit of main.cpp:
//   static rmq::bench::Registrar r("codec", "help text", {{"-s <bytes>", "body size", kInteger}}, &runCodecBench);
// main.cpp builds the command line from the options (CLI11: validation, --help per subcommand) and
// calls run(); a run that finds conflicting options calls args.addError(...) and returns 2.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "client/client_tls.h"
#include "tools/cli/cli_options.h"

namespace rmq::bench {

using tools::OptionSpec;
using tools::OptionValues;
inline constexpr auto kInteger = tools::ValueKind::Integer;
inline constexpr auto kNumber = tools::ValueKind::Number;

using BenchMain = int (*)(OptionValues& args);
struct BenchEntry {
  std::string help;
  std::vector<OptionSpec> options;
  BenchMain run;
};
std::map<std::string, BenchEntry>& registry();
struct Registrar {
  Registrar(const char* name, const char* help, std::vector<OptionSpec> options, BenchMain run) {
    registry()[name] = {help, std::move(options), run};
  }
};

// "--endpoint host:port" of the 5.x gRPC benchmarks (default 127.0.0.1:8081, the dev node's port):
// false after args.addError when it is not host:port.
inline bool readGrpcEndpoint(OptionValues& args, std::string& host, uint16_t& port) {
  std::string endpoint = args.get({"endpoint"}, "127.0.0.1:8081");
  auto colon = endpoint.rfind(':');
  if (colon == std::string::npos) {
    args.addError("--endpoint must be host:port");
    return false;
  }
  host = endpoint.substr(0, colon);
  port = static_cast<uint16_t>(std::atoi(endpoint.c_str() + colon + 1));
  return true;
}

// "-n <addr>": name servers, default $NAMESRV_ADDR.
inline OptionSpec namesrvOption() {
  return {"-n <addr>", "name servers \"host:port;host:port\" (default $NAMESRV_ADDR)", tools::ValueKind::Text, {},
          "NAMESRV_ADDR"};
}

// "--tls", "--tls-config <file>": the clients connect with TLS (Java -Dtls.enable=true), tls.*
// client keys from the file (client/client_tls.h). `tlsFromArgs` gives null without --tls.
inline std::vector<OptionSpec> tlsOptions() {
  return {{"--tls", "connect with TLS (Java -Dtls.enable=true)"},
          {"--tls-config <file>", "Java tls.properties for the tls.client.* keys (default /etc/rocketmq/tls.properties)"}};
}
inline Result<net::TlsContextPtr> tlsFromArgs(OptionValues& args) {
  return client::clientTls(args.flag("tls"), args.get({"tls-config"}, "/etc/rocketmq/tls.properties"));
}

// "--json": one JSON object per second and a summary object instead of text lines.
inline OptionSpec jsonOption() { return {"--json", "print JSON objects (per second, summary) instead of text"}; }

}  // namespace rmq::bench
