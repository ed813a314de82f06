// doctest's main for the unit and integration executables, plus sharding: with RMQ_TEST_SHARD=K/N
// in the environment (and no -tc/--test-case filter on the command line) the executable runs only
// its K-th of N slices of the test cases (1-based; balanced by the durations in RMQ_TEST_DURATIONS
// when set, else round robin over the names in order), so ctest
// can run the slow integration suite as N processes side by side (CMakeLists.txt). Every test case
// is in exactly one slice; a test's own filters (-tc=...) always win over the shard.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

bool hasTestCaseFilter(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    for (std::string_view prefix : {"-tc=", "--test-case=", "-dt-tc=", "--dt-test-case="}) {
      if (arg.starts_with(prefix)) return true;
    }
  }
  return false;
}

// Seconds per test case from RMQ_TEST_DURATIONS (lines "seconds<TAB>name", e.g.
// test/integration/durations.tsv, written from a run with -d: see that file's first line); empty
// when unset or unreadable.
std::map<std::string, double> readDurations() {
  std::map<std::string, double> out;
  const char* path = std::getenv("RMQ_TEST_DURATIONS");
  if (path == nullptr) return out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto tab = line.find('\t');
    if (line.empty() || line[0] == '#' || tab == std::string::npos) continue;
    out[line.substr(tab + 1)] = std::atof(line.substr(0, tab).c_str());
  }
  return out;
}

// Slice of each name (0-based). With durations: longest first onto the least-loaded slice (LPT),
// a test missing from the file costs the median of the known ones; without: round robin. Every
// shard process computes the same assignment from the same inputs.
std::map<std::string, int> assignSlices(const std::set<std::string>& names, int n) {
  std::map<std::string, int> slice;
  const auto durations = readDurations();
  if (durations.empty()) {
    int index = 0;
    for (const auto& name : names) slice[name] = index++ % n;
    return slice;
  }
  std::vector<double> known;
  for (const auto& [name, seconds] : durations) known.push_back(seconds);
  std::nth_element(known.begin(), known.begin() + known.size() / 2, known.end());
  const double median = known[known.size() / 2];
  std::vector<std::pair<double, std::string>> byCost;
  for (const auto& name : names) {
    auto it = durations.find(name);
    byCost.emplace_back(it == durations.end() ? median : it->second, name);
  }
  std::stable_sort(byCost.begin(), byCost.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<double> load(n, 0.0);
  for (const auto& [cost, name] : byCost) {
    const int least = int(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += cost;
    slice[name] = least;
  }
  return slice;
}

// The names of slice `k` of `n`, as one doctest filter (commas and backslashes escaped).
std::string shardFilter(int k, int n) {
  std::set<std::string> names;
  for (const auto& tc : doctest::detail::getRegisteredTests()) names.insert(tc.m_name);
  std::string filter;
  for (const auto& [name, slice] : assignSlices(names, n)) {
    if (slice != k - 1) continue;
    if (!filter.empty()) filter += ',';
    for (char c : name) {
      if (c == ',' || c == '\\') filter += '\\';
      filter += c;
    }
  }
  return filter;
}

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);
  const char* shard = std::getenv("RMQ_TEST_SHARD");
  int k = 0, n = 0;
  if (shard != nullptr && !hasTestCaseFilter(argc, argv)) {
    if (std::sscanf(shard, "%d/%d", &k, &n) != 2 || n < 1 || k < 1 || k > n) {
      std::fprintf(stderr, "RMQ_TEST_SHARD=%s: expected K/N with 1 <= K <= N\n", shard);
      return 2;
    }
    const std::string filter = shardFilter(k, n);
    // An empty slice (more shards than tests) must run nothing, not everything.
    context.addFilter("test-case", filter.empty() ? "\x01no test\x01" : filter.c_str());
    std::printf("shard %d/%d\n", k, n);
  }
  return context.run();
}
