#pragma once
// RawConn: a plain blocking TCP connection to 127.0.0.1:<port> for bytes no client would send
// (garbage, oversized or unfinished frames) and for watching the server close it.
#include <chrono>
#include <cstdint>
#include <string>

namespace rmq::test {

class RawConn {
 public:
  explicit RawConn(uint16_t port);  // connected() tells whether it worked
  ~RawConn();
  RawConn(const RawConn&) = delete;
  RawConn& operator=(const RawConn&) = delete;

  bool connected() const { return fd_ >= 0; }
  bool send(const std::string& bytes);  // false once the peer closed (EPIPE / reset)
  // True when the server closes the connection within `limit` (EOF or reset); false if it stays
  // open or sends bytes instead.
  bool closedWithin(std::chrono::milliseconds limit);

 private:
  int fd_ = -1;
};

// Connects, sends `bytes`, and reports whether the server closed the connection within 5 s.
bool serverClosesAfter(uint16_t port, const std::string& bytes);

}  // namespace rmq::test
