#pragma once
// gRPC status codes (grpc/doc/statuscodes.md) and the status a call ends with. These travel in the
// `grpc-status` / `grpc-message` trailers. RocketMQ's v2 API puts its own business status
// (apache.rocketmq.v2.Status) inside an OK response; a non-OK gRPC status means a transport or
// protocol problem (unknown method, bad frame, message too large, cancelled, deadline).
#include <cstdint>
#include <string>
#include <string_view>

namespace rmq::grpc {

enum class StatusCode : int {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
};

struct Status {
  StatusCode code = StatusCode::OK;
  std::string message;  // sent percent-encoded in grpc-message

  static Status ok() { return {}; }
  bool isOk() const { return code == StatusCode::OK; }
};

// "OK", "UNIMPLEMENTED", ... (logs and metrics labels).
std::string_view statusCodeName(StatusCode code);

}  // namespace rmq::grpc
