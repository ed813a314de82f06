#include "http/request_parser.h"

#include <http_parser.h>

#include <climits>

namespace rmq::http {

struct RequestParser::State {
  http_parser parser;
  http_parser_settings settings;
};

// The C callbacks: parser->data is the RequestParser. A non-zero return stops the parser.
struct RequestParser::Callbacks {
  static RequestParser& self(http_parser* p) { return *static_cast<RequestParser*>(p->data); }

  static int onMessageBegin(http_parser* p) {
    auto& r = self(p);
    r.started_ = true;
    r.current_ = HttpRequest();
    r.url_.clear();
    r.lastWasValue_ = false;
    return 0;
  }
  static int onUrl(http_parser* p, const char* at, size_t len) {
    auto& r = self(p);
    r.url_.append(at, len);
    return 0;
  }
  static int onHeaderField(http_parser* p, const char* at, size_t len) {
    auto& r = self(p);
    if (r.lastWasValue_ || r.current_.headers.empty()) r.current_.headers.emplace_back();
    r.current_.headers.back().first.append(at, len);
    r.lastWasValue_ = false;
    return 0;
  }
  static int onHeaderValue(http_parser* p, const char* at, size_t len) {
    auto& r = self(p);
    if (r.current_.headers.empty()) r.current_.headers.emplace_back();
    r.current_.headers.back().second.append(at, len);
    r.lastWasValue_ = true;
    return 0;
  }
  static int onHeadersComplete(http_parser* p) {
    auto& r = self(p);
    if (p->content_length != ULLONG_MAX && (p->flags & F_CHUNKED) == 0 && p->content_length > r.limits_.maxBodyBytes) {
      r.fail(413, "request body over " + std::to_string(r.limits_.maxBodyBytes) + " bytes");
      return -1;  // -1 = error for on_headers_complete (1 would mean "no body")
    }
    r.current_.method = http_method_str(static_cast<http_method>(p->method));
    std::string_view url = r.url_;
    size_t q = url.find('?');
    std::string_view path = url.substr(0, q);
    size_t frag = path.find('#');
    path = path.substr(0, frag);
    r.current_.path = percentDecode(path, false);
    if (q != std::string_view::npos) {
      std::string_view query = url.substr(q + 1);
      r.current_.query = std::string(query.substr(0, query.find('#')));
    }
    if (r.current_.path.empty() || r.current_.path.front() != '/') {
      r.fail(400, "request target must be an absolute path");
      return -1;
    }
    r.inHead_ = false;
    http_parser_pause(p, 1);  // feed() learns where the head ended (see headBytes_)
    return 0;
  }
  static int onBody(http_parser* p, const char* at, size_t len) {
    auto& r = self(p);
    if (r.current_.body.size() + len > r.limits_.maxBodyBytes) {
      r.fail(413, "request body over " + std::to_string(r.limits_.maxBodyBytes) + " bytes");
      return 1;
    }
    r.current_.body.append(at, len);
    return 0;
  }
  static int onMessageComplete(http_parser* p) {
    auto& r = self(p);
    r.ready_ = true;
    r.keepAlive_ = http_should_keep_alive(p) != 0;
    http_parser_pause(p, 1);  // one request at a time (pipelining): feed() returns here
    return 0;
  }
};

RequestParser::RequestParser(ParseLimits limits) : s_(std::make_unique<State>()), limits_(limits) {
  http_parser_init(&s_->parser, HTTP_REQUEST);
  s_->parser.data = this;
  http_parser_settings_init(&s_->settings);
  s_->settings.on_message_begin = &Callbacks::onMessageBegin;
  s_->settings.on_url = &Callbacks::onUrl;
  s_->settings.on_header_field = &Callbacks::onHeaderField;
  s_->settings.on_header_value = &Callbacks::onHeaderValue;
  s_->settings.on_headers_complete = &Callbacks::onHeadersComplete;
  s_->settings.on_body = &Callbacks::onBody;
  s_->settings.on_message_complete = &Callbacks::onMessageComplete;
}

RequestParser::~RequestParser() = default;

void RequestParser::fail(int status, std::string message) {
  if (errorStatus_ != 0) return;
  errorStatus_ = status;
  errorMessage_ = std::move(message);
}

// The head (request line + headers) is limited in raw bytes, counted here before the parser sees
// them: it never gets more than the limit, so whether a request fails with 431 or with a parse
// error does not depend on how its bytes were split into reads.
size_t RequestParser::feed(std::string_view data) {
  size_t used = 0;
  while (used < data.size() && !ready_ && errorStatus_ == 0) {
    std::string_view rest = data.substr(used);
    if (inHead_) {
      if (headBytes_ >= limits_.maxHeaderBytes) {
        fail(431, "request line and headers over " + std::to_string(limits_.maxHeaderBytes) + " bytes");
        break;
      }
      rest = rest.substr(0, limits_.maxHeaderBytes - headBytes_);
    }
    bool wasInHead = inHead_;
    size_t n = execute(rest);
    if (wasInHead) headBytes_ += n;  // the parser pauses where the head ends
    used += n;
    if (n == 0 && wasInHead == inHead_) break;  // no progress (an error was recorded)
  }
  return used;
}

size_t RequestParser::execute(std::string_view data) {
  size_t n = http_parser_execute(&s_->parser, &s_->settings, data.data(), data.size());
  auto err = static_cast<http_errno>(s_->parser.http_errno);
  if (err == HPE_PAUSED && !ready_) {  // paused at the end of the head: go on with the body
    http_parser_pause(&s_->parser, 0);
    return n;
  }
  if (err == HPE_OK || (err == HPE_PAUSED && ready_)) return n;
  if (errorStatus_ == 0) {
    if (err == HPE_HEADER_OVERFLOW) fail(431, "request headers too large");
    else fail(400, std::string("malformed request: ") + http_errno_description(err));
  }
  return n;
}

HttpRequest RequestParser::take() {
  ready_ = false;
  started_ = false;
  inHead_ = true;
  headBytes_ = 0;
  http_parser_pause(&s_->parser, 0);
  return std::move(current_);
}

}  // namespace rmq::http
