#pragma once
// rmqbench subcommands register themselves here (one file per benchmark), so adding a benchmark
// needs no edit of main.cpp: `static rmq::bench::Registrar r("codec", "help text", &runCodecBench);`
#include <map>
#include <string>

namespace rmq::bench {

using BenchMain = int (*)(int argc, char** argv);  // argv[0] = subcommand name
struct BenchEntry {
  std::string help;
  BenchMain run;
};
std::map<std::string, BenchEntry>& registry();
struct Registrar {
  Registrar(const char* name, const char* help, BenchMain run) { registry()[name] = {help, run}; }
};

}  // namespace rmq::bench
