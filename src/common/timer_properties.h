#pragma once
// Property names of RocketMQ 5.x timer messages (MessageConst PROPERTY_TIMER_*), in rmq::prop
// next to common/message.h's: a 4.x client sets the first four as user properties; the broker
// adds the rest (store/timer_rewrite.h, roles/broker/delivery/timer_message_service.h).
#include <string_view>

namespace rmq::prop {
inline constexpr std::string_view TIMER_DELIVER_MS = "TIMER_DELIVER_MS";
inline constexpr std::string_view TIMER_DELAY_SEC = "TIMER_DELAY_SEC";
inline constexpr std::string_view TIMER_DELAY_MS = "TIMER_DELAY_MS";
inline constexpr std::string_view TIMER_DEL_UNIQKEY = "TIMER_DEL_UNIQKEY";
inline constexpr std::string_view TIMER_OUT_MS = "TIMER_OUT_MS";
inline constexpr std::string_view TIMER_ENQUEUE_MS = "TIMER_ENQUEUE_MS";
inline constexpr std::string_view TIMER_DEQUEUE_MS = "TIMER_DEQUEUE_MS";
inline constexpr std::string_view TIMER_DELAY_LEVEL = "TIMER_DELAY_LEVEL";
// How often a far timer was re-parked closer to its time (5.x's name and meaning).
inline constexpr std::string_view TIMER_ROLL_TIMES = "TIMER_ROLL_TIMES";
// rmqnode's own: when a parked copy of a far timer wakes to be rolled (its consume-queue tags
// code instead of TIMER_OUT_MS; 5.x keeps this in its timer log). Removed on delivery.
inline constexpr std::string_view TIMER_WAKE_MS = "TIMER_WAKE_MS";
}  // namespace rmq::prop
