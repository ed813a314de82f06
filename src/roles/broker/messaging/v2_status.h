#pragma once
// RocketMQ 5.x business status (apache.rocketmq.v2.Status, inside a gRPC-OK response) and the
// mapping of the broker's remoting ResponseCode onto it (as the 5.x proxy maps a broker's answer:
// persistence timeouts, HA not available, busy -> TOO_MANY_REQUESTS, ...).
#include <string>

#include "apache/rocketmq/v2/definition.pb.h"

namespace rmq::broker::messaging {

namespace v2 = apache::rocketmq::v2;

v2::Status makeStatus(v2::Code code, std::string message);
inline v2::Status okStatus() { return makeStatus(v2::Code::OK, "OK"); }
// ResponseCode (common/response_code.h) -> v2 code; unknown codes are INTERNAL_SERVER_ERROR.
v2::Code codeOfResponse(int responseCode);

}  // namespace rmq::broker::messaging
