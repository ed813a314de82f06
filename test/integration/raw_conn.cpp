#include "raw_conn.h"

#include "node_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace rmq::test {

RawConn::RawConn(uint16_t port) : fd_(connectLoopback(port)) {}

RawConn::~RawConn() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawConn::send(const std::string& bytes) {
  return fd_ >= 0 && ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size());
}

bool RawConn::closedWithin(std::chrono::milliseconds limit) {
  if (fd_ < 0) return false;
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) {
      char buf[256];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      return n <= 0;  // EOF or reset; answer bytes (n > 0) mean it is still serving this peer
    }
  }
  return false;
}

bool serverClosesAfter(uint16_t port, const std::string& bytes) {
  RawConn c(port);
  return c.connected() && c.send(bytes) && c.closedWithin(std::chrono::seconds(5));
}

}  // namespace rmq::test
