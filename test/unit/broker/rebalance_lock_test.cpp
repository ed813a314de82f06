// RebalanceLockManager against Java 4.9's rules: one owner per group+queue, renewal by the owner,
// expiry after the max live time without renewal, unlock only by the owner, groups independent.
#include <doctest/doctest.h>

#include <thread>

#include "roles/broker/clients/rebalance_lock_manager.h"

using rmq::broker::MessageQueueId;
using rmq::broker::RebalanceLockManager;

namespace {
const MessageQueueId q0{"T", "broker-a", 0};
const MessageQueueId q1{"T", "broker-a", 1};
}  // namespace

TEST_CASE("rebalance locks: one owner per group and queue; owner renews; others refused") {
  RebalanceLockManager locks;
  CHECK(locks.tryLockBatch("g", {q0, q1}, "A").size() == 2);
  CHECK(locks.tryLockBatch("g", {q0, q1}, "B").empty());
  CHECK(locks.tryLockBatch("g", {q0}, "A").size() == 1);  // renewal
  CHECK(locks.isLockedBy("g", q0, "A"));
  CHECK_FALSE(locks.isLockedBy("g", q0, "B"));
  CHECK(locks.tryLockBatch("other", {q0}, "B").size() == 1);  // groups are independent
}

TEST_CASE("rebalance locks: unlock only by the owner") {
  RebalanceLockManager locks;
  locks.tryLockBatch("g", {q0, q1}, "A");
  locks.unlockBatch("g", {q0, q1}, "B");
  CHECK(locks.tryLockBatch("g", {q0}, "B").empty());
  locks.unlockBatch("g", {q0}, "A");
  auto got = locks.tryLockBatch("g", {q0, q1}, "B");
  REQUIRE(got.size() == 1);
  CHECK(got[0] == q0);
}

TEST_CASE("rebalance locks: a lock expires after the max live time without renewal") {
  // Long enough that a descheduled test thread (2 loaded CI cores) still finds the lock live at
  // once; then a bounded poll for the expiry instead of a fixed sleep.
  RebalanceLockManager locks(std::chrono::milliseconds(500));
  locks.tryLockBatch("g", {q0}, "A");
  CHECK(locks.tryLockBatch("g", {q0}, "B").empty());
  bool expired = false;
  for (int i = 0; i < 500 && !expired; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    expired = !locks.isLockedBy("g", q0, "A");
  }
  REQUIRE(expired);
  CHECK(locks.tryLockBatch("g", {q0}, "B").size() == 1);
  CHECK(locks.isLockedBy("g", q0, "B"));
  CHECK(locks.tryLockBatch("g", {q0}, "A").empty());
}
