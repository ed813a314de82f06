// rmqbench: benchmark tool. `rmqbench <subcommand> [options]`; `rmqbench` alone lists them.
// Subcommands register themselves (bench_registry.h). Library logging is limited to warnings so
// the per-second lines stay readable; RMQ_LOG_LEVEL=info|debug shows more.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
std::map<std::string, BenchEntry>& registry() {
  static std::map<std::string, BenchEntry> r;
  return r;
}
}  // namespace rmq::bench

namespace {
int usage(FILE* out, int code) {
  std::fprintf(out, "usage: rmqbench <subcommand> [options]   (rmqbench <subcommand> --help for its options)\n"
                    "subcommands:\n");
  for (auto& [name, e] : rmq::bench::registry()) std::fprintf(out, "  %-10s %s\n", name.c_str(), e.help.c_str());
  return code;
}
}  // namespace

int main(int argc, char** argv) {
  auto level = rmq::log::Level::Warn;
  if (const char* env = std::getenv("RMQ_LOG_LEVEL")) rmq::log::parseLevel(env, level);
  rmq::log::setLevel(level);
  auto& reg = rmq::bench::registry();
  if (argc < 2) return usage(stderr, 2);
  if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "help"))
    return usage(stdout, 0);
  auto it = reg.find(argv[1]);
  if (it == reg.end()) {
    std::fprintf(stderr, "rmqbench: unknown subcommand '%s'\n", argv[1]);
    return usage(stderr, 2);
  }
  return it->second.run(argc - 1, argv + 1);
}
