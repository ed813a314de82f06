// rmqbench: benchmark tool. `rmqbench <subcommand> [options]`; `rmqbench` alone lists them,
// `rmqbench <subcommand> --help` shows its options. Subcommands register themselves
// (bench_registry.h). Library logging is limited to warnings so the per-second lines stay
// readable; RMQ_LOG_LEVEL=info|debug shows more. Exit codes: 0 ok, 1 the run failed, 2 usage.
#include <cstdlib>

#include "common/log.h"
#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
std::map<std::string, BenchEntry>& registry() {
  static std::map<std::string, BenchEntry> r;
  return r;
}
}  // namespace rmq::bench

int main(int argc, char** argv) {
  auto level = rmq::log::Level::Warn;
  if (const char* env = std::getenv("RMQ_LOG_LEVEL")) rmq::log::parseLevel(env, level);
  rmq::log::setLevel(level);
  rmq::tools::SubcommandCli cli("rmqbench", "subcommand", "rmqnode benchmarks");
  for (auto& [name, e] : rmq::bench::registry()) cli.add(name, e.help, e.options);
  auto parsed = cli.parse(argc, argv);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  auto& invocation = std::get<rmq::tools::SubcommandCli::Invocation>(parsed);
  int rc = rmq::bench::registry().at(invocation.name).run(invocation.values);
  if (!invocation.values.errors().empty()) return cli.usageError(invocation.name, invocation.values.errors());
  return rc;
}
