#pragma once
// Open-file limit: a broker holding 10,000 client connections (and a tool opening them) needs more
// descriptors than the usual soft limit of 1024. raiseFdLimit() lifts the soft RLIMIT_NOFILE to the
// hard limit, as RocketMQ's start scripts do with `ulimit -n`.
#include <cstdint>

namespace rmq {

struct FdLimit {
  uint64_t before = 0;  // soft limit found
  uint64_t soft = 0;    // soft limit now
  uint64_t hard = 0;
  bool ok = true;       // false: setrlimit failed (soft unchanged)
};

FdLimit raiseFdLimit();

}  // namespace rmq
