#pragma once
// Raises an atomic to `value` unless it already holds more; returns the value it holds after.
// For positions that only move forward but are advanced by more than one thread (concurrent
// flushes, slave acks): a plain store could move them back.
#include <atomic>

namespace rmq {

template <class T>
T atomicRaise(std::atomic<T>& target, T value) {
  T cur = target.load();
  while (value > cur && !target.compare_exchange_weak(cur, value)) {
  }
  return value > cur ? value : cur;
}

}  // namespace rmq
