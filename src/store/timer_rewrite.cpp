#include "store/timer_rewrite.h"

#include <charconv>

#include "common/timer_properties.h"
#include "common/java_string_map.h"
#include "common/message_codec.h"

namespace rmq::store {

namespace {
std::optional<int64_t> parseLong(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// The delivery time the producer asked for: TIMER_DELAY_SEC, else TIMER_DELAY_MS, else
// TIMER_DELIVER_MS (5.x's precedence). nullopt + absent=true when none is set.
std::optional<int64_t> requestedDeliverMs(std::string_view props, int64_t nowMs, bool& absent) {
  absent = false;
  if (auto sec = findEncodedProperty(props, prop::TIMER_DELAY_SEC)) {
    auto v = parseLong(*sec);
    return v ? std::optional<int64_t>(nowMs + *v * 1000) : std::nullopt;
  }
  if (auto ms = findEncodedProperty(props, prop::TIMER_DELAY_MS)) {
    auto v = parseLong(*ms);
    return v ? std::optional<int64_t>(nowMs + *v) : std::nullopt;
  }
  if (auto at = findEncodedProperty(props, prop::TIMER_DELIVER_MS)) return parseLong(*at);
  absent = true;
  return std::nullopt;
}

TimerRewrite park(const MessageToStore& msg, int64_t deliverMs, int64_t wakeMs, int32_t interceptedLevel) {
  thread_local JavaStringMap props;
  props.clear();
  putEncodedProperties(props, msg.properties);
  if (msg.waitProperty) props.put(prop::WAIT, *msg.waitProperty);
  std::string out = std::to_string(deliverMs), qid = std::to_string(msg.queueId), level;
  if (interceptedLevel > 0) {
    level = std::to_string(interceptedLevel);
    props.remove(prop::DELAY);
    props.put(prop::TIMER_DELAY_LEVEL, level);
  }
  props.put(prop::TIMER_OUT_MS, out);
  std::string wake = std::to_string(wakeMs);
  if (wakeMs != deliverMs) props.put(prop::TIMER_WAKE_MS, wake);
  props.put(prop::REAL_TOPIC, msg.topic);
  props.put(prop::REAL_QID, qid);
  TimerRewrite r;
  r.decision = TimerDecision::Park;
  r.deliverMs = deliverMs;
  appendProperties(r.properties, props);
  return r;
}
}  // namespace

int64_t timerWakeMs(int64_t deliverMs, int64_t nowMs, int64_t rollWindowMs) {
  if (deliverMs - nowMs < rollWindowMs) return deliverMs;
  return deliverMs - nowMs - rollWindowMs < rollWindowMs / 3 ? nowMs + rollWindowMs / 2 : nowMs + rollWindowMs;
}

int32_t delayLevelOf(std::string_view properties) {
  auto d = findEncodedProperty(properties, prop::DELAY);
  if (!d) return 0;
  int32_t level = 0;
  std::from_chars(d->data(), d->data() + d->size(), level);
  return level > 0 ? level : 0;
}

TimerRewrite rewriteTimer(const MessageToStore& msg, const StoreConfig& cfg, int64_t nowMs, int32_t level,
                          int64_t levelDelayMs) {
  TimerRewrite r;
  if (level > 0) {
    if (!cfg.timerInterceptDelayLevel || !cfg.timerWheelEnable || levelDelayMs <= 0) return r;
    int64_t at = nowMs + levelDelayMs;
    return park(msg, at, timerWakeMs(at, nowMs, cfg.timerRollWindowMs()), level);
  }
  // Every property this reads starts with "TIMER_": one scan settles the common plain message
  // instead of four lookups per append.
  if (msg.properties.find("TIMER_") == std::string_view::npos) return r;
  if (findEncodedProperty(msg.properties, prop::TIMER_OUT_MS)) return r;
  bool absent = false;
  auto deliverMs = requestedDeliverMs(msg.properties, nowMs, absent);
  if (absent) return r;
  if (!deliverMs) {
    r.decision = TimerDecision::Illegal;
    return r;
  }
  if (!cfg.timerWheelEnable) {
    r.decision = TimerDecision::NotEnabled;
    return r;
  }
  r.deliverMs = *deliverMs;
  if (*deliverMs - nowMs <= cfg.timerPrecisionMs) {
    if (findEncodedProperty(msg.properties, prop::TIMER_DEL_UNIQKEY)) r.decision = TimerDecision::Illegal;
    return r;  // due now: a normal message
  }
  if (*deliverMs - nowMs > int64_t{cfg.timerMaxDelaySec} * 1000) {
    r.decision = TimerDecision::Illegal;
    return r;
  }
  return park(msg, *deliverMs, timerWakeMs(*deliverMs, nowMs, cfg.timerRollWindowMs()), 0);
}

}  // namespace rmq::store
