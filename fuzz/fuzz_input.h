#pragma once
// Helpers shared by the fuzz targets: the input as a string_view, and splitting one input into
// parts (targets taking two inputs, e.g. an expression and the properties it is evaluated on).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <utility>

namespace rmq::fuzz {

inline std::string_view input(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// (before, after) the first `sep`; (all, "") when there is none.
inline std::pair<std::string_view, std::string_view> splitAt(std::string_view s, char sep) {
  auto i = s.find(sep);
  if (i == std::string_view::npos) return {s, {}};
  return {s.substr(0, i), s.substr(i + 1)};
}

// Crashes (so libFuzzer reports the input) when an invariant between decoders does not hold.
#define RMQ_FUZZ_CHECK(cond)                                                       \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      __builtin_trap();                                                            \
    }                                                                              \
  } while (0)

}  // namespace rmq::fuzz
