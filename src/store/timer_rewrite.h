#pragma once
// Timer messages on the put path (RocketMQ 5.x HookUtils.transformTimerMessage, our own code): a
// message whose properties carry TIMER_DELIVER_MS (epoch ms), TIMER_DELAY_SEC or TIMER_DELAY_MS —
// a 4.x client sets them as user properties — is parked in rmq_sys_wheel_timer queue 0 with
// TIMER_OUT_MS = its delivery time and REAL_TOPIC / REAL_QID, like a DELAY message in
// SCHEDULE_TOPIC_XXXX. The dispatcher gives the parked unit tags code = TIMER_OUT_MS, so the
// consume queue alone (20 bytes a message, replicated with the commit log) is the timer's durable
// index; the broker's TimerMessageService delivers from it.
//
// Decisions, in order:
//  - DELAY > 0: a timer only under timerInterceptDelayLevel (delivery = now + the level's delay,
//    TIMER_DELAY_LEVEL = the level, DELAY removed); else the DELAY path as before, untouched.
//  - TIMER_OUT_MS already present (a delivered timer message put again): not a timer.
//  - none of the three time properties: not a timer.
//  - a time property that is not a number: Illegal. timerWheelEnable=false: NotEnabled.
//  - due within timerPrecisionMs (or in the past): stored at once as a normal message, properties
//    unchanged — except a delete marker (TIMER_DEL_UNIQKEY), which is Illegal (too late to cancel).
//  - more than timerMaxDelaySec ahead: Illegal.
//  - else Park. Unlike 5.x the time is not rounded down to the precision: the service delivers at
//    the millisecond.
//  - Park farther away than the roll window (timerRollWindowMs): TIMER_WAKE_MS = an earlier time
//    the parked copy wakes at (the unit's tags code instead of TIMER_OUT_MS); the service then
//    re-parks it (TIMER_ROLL_TIMES + 1) in the newest commit-log file, so retention never deletes
//    the body of a pending timer (5.x rolls the same way, its wake time in its timer log).
#include <cstdint>
#include <string>

#include "store/store_config.h"
#include "store/store_types.h"

namespace rmq::store {

enum class TimerDecision { NotTimer, Park, Illegal, NotEnabled };

struct TimerRewrite {
  TimerDecision decision = TimerDecision::NotTimer;
  int64_t deliverMs = 0;
  std::string properties;  // Park: the parked message's properties (WAIT put back, HashMap order)
};

// level / levelDelayMs: the message's DELAY level (delayLevelOf) and that level's delay in ms.
TimerRewrite rewriteTimer(const MessageToStore& msg, const StoreConfig& cfg, int64_t nowMs, int32_t level,
                          int64_t levelDelayMs);

// When a parked copy of a timer due at deliverMs wakes (5.x doEnqueue's roll rule): deliverMs
// itself within the window; else now + the window, or now + half of it when what is left beyond
// the window is under a third of it (the next copy is then not rolled at once again).
int64_t timerWakeMs(int64_t deliverMs, int64_t nowMs, int64_t rollWindowMs);

// The DELAY level of a properties string (0 when absent or not a positive number).
int32_t delayLevelOf(std::string_view properties);

}  // namespace rmq::store
