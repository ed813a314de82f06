// store/timer_rewrite: which sends become timer messages, and the parked properties.
#include <doctest/doctest.h>

#include "common/message_codec.h"
#include "store/timer_rewrite.h"

using namespace rmq;
using namespace rmq::store;

namespace {
constexpr int64_t kNow = 1'700'000'000'000;

struct Msg {
  std::string props;
  MessageToStore m;
  explicit Msg(Properties p) : props(encodeProperties(p)) {
    m.topic = "Orders";
    m.queueId = 3;
    m.properties = props;
  }
};

TimerRewrite rewrite(const Properties& p, const StoreConfig& cfg = {}) {
  Msg msg(p);
  return rewriteTimer(msg.m, cfg, kNow, delayLevelOf(msg.props), 5000);
}
}  // namespace

TEST_CASE("timer rewrite: absolute and relative times park with TIMER_OUT_MS and the real destination") {
  auto abs = rewrite({{"TIMER_DELIVER_MS", std::to_string(kNow + 60'000)}, {"KEYS", "k1"}});
  REQUIRE(abs.decision == TimerDecision::Park);
  CHECK(abs.deliverMs == kNow + 60'000);
  CHECK(findEncodedProperty(abs.properties, "TIMER_OUT_MS") == std::to_string(kNow + 60'000));
  CHECK(findEncodedProperty(abs.properties, "REAL_TOPIC") == "Orders");
  CHECK(findEncodedProperty(abs.properties, "REAL_QID") == "3");
  CHECK(findEncodedProperty(abs.properties, "KEYS") == "k1");

  CHECK(rewrite({{"TIMER_DELAY_SEC", "30"}}).deliverMs == kNow + 30'000);
  CHECK(rewrite({{"TIMER_DELAY_MS", "1500"}}).deliverMs == kNow + 1'500);
  // 5.x precedence: TIMER_DELAY_SEC before TIMER_DELAY_MS before TIMER_DELIVER_MS.
  CHECK(rewrite({{"TIMER_DELIVER_MS", std::to_string(kNow + 9'000)}, {"TIMER_DELAY_SEC", "2"}}).deliverMs == kNow + 2'000);
}

TEST_CASE("timer rewrite: past, now and within the precision are normal messages; too far is illegal") {
  StoreConfig cfg;
  cfg.timerPrecisionMs = 100;
  CHECK(rewrite({{"TIMER_DELIVER_MS", std::to_string(kNow - 5'000)}}, cfg).decision == TimerDecision::NotTimer);
  CHECK(rewrite({{"TIMER_DELIVER_MS", std::to_string(kNow)}}, cfg).decision == TimerDecision::NotTimer);
  CHECK(rewrite({{"TIMER_DELIVER_MS", std::to_string(kNow + 100)}}, cfg).decision == TimerDecision::NotTimer);
  CHECK(rewrite({{"TIMER_DELIVER_MS", std::to_string(kNow + 101)}}, cfg).decision == TimerDecision::Park);
  cfg.timerMaxDelaySec = 60;
  CHECK(rewrite({{"TIMER_DELAY_SEC", "60"}}, cfg).decision == TimerDecision::Park);
  CHECK(rewrite({{"TIMER_DELAY_SEC", "61"}}, cfg).decision == TimerDecision::Illegal);
  CHECK(rewrite({{"TIMER_DELIVER_MS", "tomorrow"}}, cfg).decision == TimerDecision::Illegal);
  cfg.timerWheelEnable = false;
  CHECK(rewrite({{"TIMER_DELAY_SEC", "5"}}, cfg).decision == TimerDecision::NotEnabled);
  CHECK(rewrite({{"KEYS", "plain"}}, cfg).decision == TimerDecision::NotTimer);
}

TEST_CASE("timer rewrite: delete markers, delivered copies and DELAY levels") {
  // A delete marker due now is too late to cancel anything.
  CHECK(rewrite({{"TIMER_DELIVER_MS", std::to_string(kNow)}, {"TIMER_DEL_UNIQKEY", "Orders+AB"}}).decision ==
        TimerDecision::Illegal);
  CHECK(rewrite({{"TIMER_DELIVER_MS", std::to_string(kNow + 5'000)}, {"TIMER_DEL_UNIQKEY", "Orders+AB"}}).decision ==
        TimerDecision::Park);
  // A delivered timer message (TIMER_OUT_MS set) put again is not parked again.
  CHECK(rewrite({{"TIMER_DELIVER_MS", std::to_string(kNow + 5'000)}, {"TIMER_OUT_MS", "1"}}).decision ==
        TimerDecision::NotTimer);
  // DELAY levels stay on their own path unless timerInterceptDelayLevel.
  CHECK(rewrite({{"DELAY", "2"}, {"TIMER_DELAY_SEC", "9"}}).decision == TimerDecision::NotTimer);
  StoreConfig cfg;
  cfg.timerInterceptDelayLevel = true;
  auto r = rewrite({{"DELAY", "2"}}, cfg);
  REQUIRE(r.decision == TimerDecision::Park);
  CHECK(r.deliverMs == kNow + 5000);
  CHECK_FALSE(findEncodedProperty(r.properties, "DELAY"));
  CHECK(findEncodedProperty(r.properties, "TIMER_DELAY_LEVEL") == "2");
}

TEST_CASE("timer rewrite: a timer beyond the roll window wakes earlier (TIMER_WAKE_MS), as 5.x's roll rule") {
  // Window 1000 ms: within it the wake is the time; beyond it now + window, or now + window / 2
  // when less than a third of the window would be left after the next wake.
  CHECK(timerWakeMs(kNow + 999, kNow, 1000) == kNow + 999);
  CHECK(timerWakeMs(kNow + 1000, kNow, 1000) == kNow + 500);
  CHECK(timerWakeMs(kNow + 1332, kNow, 1000) == kNow + 500);
  CHECK(timerWakeMs(kNow + 1333, kNow, 1000) == kNow + 1000);
  CHECK(timerWakeMs(kNow + 86'400'000, kNow, 1000) == kNow + 1000);

  StoreConfig cfg;
  cfg.timerPrecisionMs = 100;
  cfg.timerRollWindowSlot = 10;  // 1 s
  auto near = rewrite({{"TIMER_DELAY_MS", "900"}}, cfg);
  REQUIRE(near.decision == TimerDecision::Park);
  CHECK_FALSE(findEncodedProperty(near.properties, "TIMER_WAKE_MS"));
  auto far = rewrite({{"TIMER_DELAY_SEC", "60"}}, cfg);
  REQUIRE(far.decision == TimerDecision::Park);
  CHECK(far.deliverMs == kNow + 60'000);
  CHECK(findEncodedProperty(far.properties, "TIMER_OUT_MS") == std::to_string(kNow + 60'000));
  CHECK(findEncodedProperty(far.properties, "TIMER_WAKE_MS") == std::to_string(kNow + 1'000));
  // The default window is 2 days: a 3-day timer wakes once on the way.
  auto threeDays = rewrite({{"TIMER_DELAY_SEC", std::to_string(3 * 24 * 3600)}});
  CHECK(findEncodedProperty(threeDays.properties, "TIMER_WAKE_MS") == std::to_string(kNow + 2 * 86'400'000LL));
}
