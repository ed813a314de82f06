#pragma once
// ResponseParser: one HTTP/1.1 response (status, body), parsed by Debian's libhttp-parser
// (nodejs/http-parser 2.9, HTTP_RESPONSE mode: Content-Length, chunked bodies with trailers, or a
// body that ends with the connection). No sockets here (unit-tested on byte strings); the etcd
// gateway's streaming answers (/v3/lease/keepalive) come chunked.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace rmq::coord {

class ResponseParser {
 public:
  explicit ResponseParser(size_t maxBodyBytes = 16 * 1024 * 1024);
  ~ResponseParser();
  ResponseParser(const ResponseParser&) = delete;
  ResponseParser& operator=(const ResponseParser&) = delete;

  // Consumes bytes of the response; returns false on a malformed response or a body over the limit
  // (see error()). Bytes after the end of the response are ignored (a server sends none before the
  // next request).
  bool feed(std::string_view data);
  // The peer closed the connection: completes a body delimited by EOF; false when that leaves the
  // response incomplete.
  bool feedEof();

  bool complete() const { return complete_; }
  bool started() const { return started_; }  // some bytes were received
  int status() const { return status_; }
  const std::string& body() const { return body_; }
  // The connection may carry the next request (HTTP/1.1 without "Connection: close").
  bool keepAlive() const { return keepAlive_; }
  const std::string& error() const { return error_; }

 private:
  struct Callbacks;
  struct State;
  std::unique_ptr<State> s_;
  size_t maxBodyBytes_;
  std::string body_;
  std::string error_;
  int status_ = 0;
  bool started_ = false;
  bool complete_ = false;
  bool keepAlive_ = false;
};

}  // namespace rmq::coord
