#include "coord/response_parser.h"

#include <http_parser.h>

namespace rmq::coord {

struct ResponseParser::State {
  http_parser parser;
  http_parser_settings settings;
};

// The C callbacks: parser->data is the ResponseParser. A non-zero return stops the parser.
struct ResponseParser::Callbacks {
  static ResponseParser& self(http_parser* p) { return *static_cast<ResponseParser*>(p->data); }

  static int onHeadersComplete(http_parser* p) {
    self(p).status_ = static_cast<int>(p->status_code);
    return 0;
  }
  static int onBody(http_parser* p, const char* at, size_t len) {
    auto& r = self(p);
    if (r.body_.size() + len > r.maxBodyBytes_) {
      r.error_ = "response body over " + std::to_string(r.maxBodyBytes_) + " bytes";
      return 1;
    }
    r.body_.append(at, len);
    return 0;
  }
  static int onMessageComplete(http_parser* p) {
    auto& r = self(p);
    r.complete_ = true;
    r.keepAlive_ = http_should_keep_alive(p) != 0;
    http_parser_pause(p, 1);  // one response per request: nothing after it is ours
    return 0;
  }
};

ResponseParser::ResponseParser(size_t maxBodyBytes) : s_(std::make_unique<State>()), maxBodyBytes_(maxBodyBytes) {
  http_parser_init(&s_->parser, HTTP_RESPONSE);
  s_->parser.data = this;
  http_parser_settings_init(&s_->settings);
  s_->settings.on_headers_complete = &Callbacks::onHeadersComplete;
  s_->settings.on_body = &Callbacks::onBody;
  s_->settings.on_message_complete = &Callbacks::onMessageComplete;
}

ResponseParser::~ResponseParser() = default;

bool ResponseParser::feed(std::string_view data) {
  if (complete_) return true;
  if (!error_.empty()) return false;
  if (!data.empty()) started_ = true;
  http_parser_execute(&s_->parser, &s_->settings, data.data(), data.size());
  auto err = static_cast<http_errno>(s_->parser.http_errno);
  if (err == HPE_OK || (err == HPE_PAUSED && complete_)) return true;
  if (error_.empty()) error_ = std::string("malformed response: ") + http_errno_description(err);
  return false;
}

bool ResponseParser::feedEof() {
  if (complete_) return true;
  if (error_.empty() && started_) http_parser_execute(&s_->parser, &s_->settings, nullptr, 0);
  if (complete_) return true;
  if (error_.empty()) error_ = started_ ? "connection closed in the middle of the response" : "connection closed before any response";
  return false;
}

}  // namespace rmq::coord
