#pragma once
// Wall-clock time in epoch milliseconds, Java's System.currentTimeMillis(): store and born
// timestamps, delivery times, ages compared with stored times. Elapsed-time measurements use
// std::chrono::steady_clock instead.
#include <chrono>
#include <cstdint>

namespace rmq {

inline int64_t nowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Milliseconds of std::chrono::steady_clock: elapsed time and deadlines, never stored.
inline int64_t steadyMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace rmq
