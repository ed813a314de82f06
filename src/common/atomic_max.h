#pragma once
// Raises an atomic to `value` unless it already holds more; returns the value it holds after.
// For positions that only move forward but are advanced by more than one thread (concurrent
// flushes, slave acks): a plain store could move them back.
#include <atomic>

namespace rmq {

// `order`: relaxed for statistics (a running maximum), the default where others read the value
// to decide (durable and acked ends).
template <class T>
T atomicRaise(std::atomic<T>& target, T value, std::memory_order order = std::memory_order_seq_cst) {
  T cur = target.load(order == std::memory_order_relaxed ? std::memory_order_relaxed : std::memory_order_seq_cst);
  while (value > cur && !target.compare_exchange_weak(cur, value, order, std::memory_order_relaxed)) {
  }
  return value > cur ? value : cur;
}

}  // namespace rmq
