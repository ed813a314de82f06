#include "common/fd_limit.h"

#include <sys/resource.h>

namespace rmq {

FdLimit raiseFdLimit() {
  FdLimit out;
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) {
    out.ok = false;
    return out;
  }
  out.before = out.soft = rl.rlim_cur;
  out.hard = rl.rlim_max;
  if (rl.rlim_cur >= rl.rlim_max) return out;
  rl.rlim_cur = rl.rlim_max;
  if (::setrlimit(RLIMIT_NOFILE, &rl) != 0) {
    out.ok = false;
    return out;
  }
  out.soft = rl.rlim_cur;
  return out;
}

}  // namespace rmq
