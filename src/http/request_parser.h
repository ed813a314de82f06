#pragma once
// RequestParser: HTTP/1.1 request parsing over Debian's libhttp-parser (nodejs/http-parser 2.9),
// with our size limits. Feed it bytes as they arrive; it stops after each complete request so
// pipelined requests are answered one at a time, in order. No sockets here (unit-testable).
//
// Errors are statuses the connection answers before closing: 400 (malformed), 413 (body over
// maxBodyBytes), 431 (request line + headers over maxHeaderBytes).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "http/http_message.h"

namespace rmq::http {

struct ParseLimits {
  size_t maxHeaderBytes = 16 * 1024;  // request line + headers, raw bytes (CRLFs included)
  size_t maxBodyBytes = 1024 * 1024;
};

class RequestParser {
 public:
  explicit RequestParser(ParseLimits limits = {});
  ~RequestParser();
  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // Consumes bytes up to the end of the next complete request (then ready()) or up to `data`'s
  // end; returns how many were consumed. Consumes nothing while ready() or after an error.
  size_t feed(std::string_view data);

  bool ready() const { return ready_; }
  // The complete request; the parser then expects the next one. Only when ready().
  HttpRequest take();
  // Whether the connection stays open after answering the request just taken (HTTP/1.1 default,
  // HTTP/1.0 with "Connection: keep-alive").
  bool keepAlive() const { return keepAlive_; }
  // Some bytes of a request not yet complete were consumed.
  bool inProgress() const { return started_ && !ready_; }

  int errorStatus() const { return errorStatus_; }  // 0, 400, 413 or 431
  const std::string& errorMessage() const { return errorMessage_; }

 private:
  struct Callbacks;
  void fail(int status, std::string message);
  size_t execute(std::string_view data);  // one http_parser_execute; maps its error to a status

  struct State;
  std::unique_ptr<State> s_;
  ParseLimits limits_;
  HttpRequest current_;
  std::string url_;
  bool inHead_ = true;    // the current request's head is not complete yet
  size_t headBytes_ = 0;  // raw bytes of the current request's head so far
  bool lastWasValue_ = false;
  bool started_ = false;
  bool ready_ = false;
  bool keepAlive_ = true;
  int errorStatus_ = 0;
  std::string errorMessage_;
};

}  // namespace rmq::http
