#include "grpc/h2_settings.h"

#include <vector>

namespace rmq::grpc {

SessionOptions sessionOptions() {
  nghttp2_option* o = nullptr;
  nghttp2_option_new(&o);
  nghttp2_option_set_no_auto_window_update(o, 1);
  nghttp2_option_set_no_closed_streams(o, 1);
  nghttp2_option_set_max_send_header_block_length(o, kMaxHeaderListSize);
  return SessionOptions(o);
}

int submitSettings(nghttp2_session* session, uint32_t maxConcurrentStreams) {
  std::vector<nghttp2_settings_entry> iv = {
      {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, static_cast<uint32_t>(kStreamWindow)},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, kMaxHeaderListSize},
  };
  if (maxConcurrentStreams > 0) iv.push_back({NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, maxConcurrentStreams});
  if (int rc = nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, iv.data(), iv.size()); rc != 0) return rc;
  return nghttp2_session_set_local_window_size(session, NGHTTP2_FLAG_NONE, 0, kConnectionWindow);
}

}  // namespace rmq::grpc
