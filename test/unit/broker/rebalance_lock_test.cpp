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
  RebalanceLockManager locks(std::chrono::milliseconds(30));
  locks.tryLockBatch("g", {q0}, "A");
  CHECK(locks.tryLockBatch("g", {q0}, "B").empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  CHECK_FALSE(locks.isLockedBy("g", q0, "A"));
  CHECK(locks.tryLockBatch("g", {q0}, "B").size() == 1);
  CHECK(locks.isLockedBy("g", q0, "B"));
  CHECK(locks.tryLockBatch("g", {q0}, "A").empty());
}
