#include <doctest/doctest.h>

#include "roles/broker/delivery/delay_levels.h"

using rmq::broker::DelayLevels;

TEST_CASE("default messageDelayLevel parses to 18 levels") {
  auto d = DelayLevels::parse("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h");
  REQUIRE(d);
  CHECK(d->maxLevel() == 18);
  CHECK(d->delayMillis(1) == 1000);
  CHECK(d->delayMillis(3) == 10000);
  CHECK(d->delayMillis(5) == 60000);
  CHECK(d->delayMillis(17) == 3600000);
  CHECK(d->delayMillis(18) == 7200000);
  CHECK(d->delayMillis(40) == 7200000);  // capped at the max level
  CHECK(d->delayMillis(0) == 0);
  CHECK(d->capLevel(99) == 18);
  CHECK(d->queueIdOf(3) == 2);
}

TEST_CASE("delay levels: days, ms, extra spaces and errors") {
  auto d = DelayLevels::parse("  200ms 1d  ");
  REQUIRE(d);
  CHECK(d->maxLevel() == 2);
  CHECK(d->delayMillis(1) == 200);
  CHECK(d->delayMillis(2) == 86400000);
  CHECK_FALSE(DelayLevels::parse(""));
  CHECK_FALSE(DelayLevels::parse("1s 5x"));
  CHECK_FALSE(DelayLevels::parse("s"));
  CHECK_FALSE(DelayLevels::parse("1s -2s"));
}
