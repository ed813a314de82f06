#pragma once
// RocketMQ 5.x's remoting codes of POP consumption (RequestCode.java 80-84, ResponseCode.java),
// in the same namespaces as common/request_code.h and common/response_code.h. Kept here, next to
// their only users, so that adding them does not rebuild every file of the project; they can move
// into the common headers at any time.
namespace rmq::RequestCode {
inline constexpr int POP_MESSAGE = 200050;
inline constexpr int ACK_MESSAGE = 200051;
inline constexpr int PEEK_MESSAGE = 200052;
inline constexpr int CHANGE_MESSAGE_INVISIBLETIME = 200053;
inline constexpr int BATCH_ACK_MESSAGE = 200151;
}  // namespace rmq::RequestCode

namespace rmq::ResponseCode {
// 5.x reuses 209/210 (4.x: the ACL config failures) for POP answers; a pop is never an ACL request.
inline constexpr int POLLING_FULL = 209;
inline constexpr int POLLING_TIMEOUT = 210;
inline constexpr int INVALID_PARAMETER = 29;  // 5.x: PEEK_MESSAGE's queue id beyond the read queues
}  // namespace rmq::ResponseCode
