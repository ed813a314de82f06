// doctest's main for the unit and integration executables, plus sharding: with RMQ_TEST_SHARD=K/N
// in the environment (and no -tc/--test-case filter on the command line) the executable runs only
// its K-th of N slices of the test cases (1-based; round robin over the names in order), so ctest
// can run the slow integration suite as N processes side by side (CMakeLists.txt). Every test case
// is in exactly one slice; a test's own filters (-tc=...) always win over the shard.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

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

// The names of slice `k` of `n`, as one doctest filter (commas and backslashes escaped).
std::string shardFilter(int k, int n) {
  std::set<std::string> names;
  for (const auto& tc : doctest::detail::getRegisteredTests()) names.insert(tc.m_name);
  std::string filter;
  int index = 0;
  for (const auto& name : names) {
    if (index++ % n != k - 1) continue;
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
