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
}  // namespace rmq::prop
