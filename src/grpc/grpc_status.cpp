#include "grpc/grpc_status.h"

namespace rmq::grpc {

std::string_view statusCodeName(StatusCode code) {
  static constexpr std::string_view kNames[] = {
      "OK",        "CANCELLED",          "UNKNOWN",      "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
      "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  auto i = static_cast<int>(code);
  return i >= 0 && i < static_cast<int>(std::size(kNames)) ? kNames[i] : "UNKNOWN";
}

}  // namespace rmq::grpc
