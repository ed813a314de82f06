#pragma once
// Milliseconds <-> google.protobuf.Timestamp / Duration (the v2 API's times and timeouts).
#include <cstdint>

#include <google/protobuf/duration.pb.h>
#include <google/protobuf/timestamp.pb.h>

namespace rmq::broker::messaging {

template <class T>  // google::protobuf::Timestamp or Duration: seconds + nanos
T fromMillis(int64_t ms) {
  T t;
  t.set_seconds(ms / 1000);
  t.set_nanos(static_cast<int32_t>(ms % 1000) * 1000000);
  return t;
}
template <class T>
int64_t toMillis(const T& t) {
  return t.seconds() * 1000 + t.nanos() / 1000000;
}

}  // namespace rmq::broker::messaging
