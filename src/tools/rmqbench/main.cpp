// rmqbench: benchmark tool. `rmqbench <subcommand> [options]`; `rmqbench` alone lists them.
#include <cstdio>
#include <cstring>

#include "tools/rmqbench/bench_registry.h"

namespace rmq::bench {
std::map<std::string, BenchEntry>& registry() {
  static std::map<std::string, BenchEntry> r;
  return r;
}
}  // namespace rmq::bench

int main(int argc, char** argv) {
  auto& reg = rmq::bench::registry();
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "help") || !reg.count(argv[1])) {
    std::fprintf(stderr, "usage: rmqbench <subcommand> [options]\nsubcommands:\n");
    for (auto& [name, e] : reg) std::fprintf(stderr, "  %-10s %s\n", name.c_str(), e.help.c_str());
    return argc < 2 ? 2 : (reg.count(argc > 1 ? argv[1] : "") ? 0 : 2);
  }
  return reg[argv[1]].run(argc - 1, argv + 1);
}
