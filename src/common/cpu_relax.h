#pragma once
// cpuRelax(): the spin-wait hint (x86 `pause`, ARM `yield`), for the store threads' short idle
// spins (Dispatcher::run, AppendThread): it eases the sibling hyperthread and the memory bus
// while a thread polls a flag for a few tens of microseconds.

namespace rmq {

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace rmq
