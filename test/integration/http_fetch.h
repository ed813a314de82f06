#pragma once
// A blocking HTTP/1.1 client for tests of the node's HTTP endpoint: one request per connection
// (Connection: close), the whole answer read until the server closes.
#include <cstdint>
#include <string>

namespace rmq::test {

struct HttpReply {
  int status = 0;            // 0 = no answer (connect failed, closed early, not HTTP)
  std::string contentType;
  std::string body;
};

HttpReply httpRequest(uint16_t port, const std::string& method, const std::string& target,
                      const std::string& body = "", const std::string& contentType = "");
inline HttpReply httpGet(uint16_t port, const std::string& target) { return httpRequest(port, "GET", target); }
// POST with an application/x-www-form-urlencoded body.
inline HttpReply httpPostForm(uint16_t port, const std::string& target, const std::string& form) {
  return httpRequest(port, "POST", target, form, "application/x-www-form-urlencoded");
}
// Percent-encodes a query or form value.
std::string urlEncode(const std::string& s);

}  // namespace rmq::test
