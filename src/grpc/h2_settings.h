#pragma once
// The HTTP/2 session set-up both sides share: flow control done by the streams themselves (credit
// given back as messages are read, stream_buffers.h) and windows big enough that a 4 MiB message
// flows without waiting for WINDOW_UPDATEs. A window is only a number: it allocates nothing.
#include <nghttp2/nghttp2.h>

#include <cstdint>
#include <memory>
#include <string_view>

namespace rmq::grpc {

constexpr int32_t kStreamWindow = 16 * 1024 * 1024;      // SETTINGS_INITIAL_WINDOW_SIZE
constexpr int32_t kConnectionWindow = 16 * 1024 * 1024;  // raised from 64 KiB by WINDOW_UPDATE
constexpr uint32_t kMaxHeaderListSize = 64 * 1024;       // request metadata (SETTINGS_MAX_HEADER_LIST_SIZE)

struct OptionDeleter {
  void operator()(nghttp2_option* o) const { nghttp2_option_del(o); }
};
using SessionOptions = std::unique_ptr<nghttp2_option, OptionDeleter>;

// No automatic WINDOW_UPDATE (the streams give credit back); closed streams are not kept around
// for priority bookkeeping (memory).
SessionOptions sessionOptions();

// One header field for nghttp2_submit_* (which copies it).
inline nghttp2_nv headerField(std::string_view name, std::string_view value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(), NGHTTP2_NV_FLAG_NONE};
}

// SETTINGS (max concurrent streams; 0 = leave the default) + the connection window; 0 or an
// nghttp2 error code.
int submitSettings(nghttp2_session* session, uint32_t maxConcurrentStreams);

}  // namespace rmq::grpc
