#include "http_get.h"

#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/connect.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/write.hpp>
#include <sys/socket.h>
#include <sys/time.h>

#include <cctype>
#include <cstdlib>

namespace rmq::test {

HttpReply httpRequest(uint16_t port, const std::string& method, const std::string& target, const std::string& body,
                      const std::string& contentType) {
  HttpReply reply;
  asio::io_context ctx;
  asio::ip::tcp::socket sock(ctx);
  asio::error_code ec;
  sock.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return reply;
  timeval tv{10, 0};
  ::setsockopt(sock.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string req = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!contentType.empty()) req += "Content-Type: " + contentType + "\r\n";
  if (!body.empty() || method == "POST") req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  asio::write(sock, asio::buffer(req), ec);
  if (ec) return reply;
  std::string raw;
  char buf[8192];
  for (;;) {  // the server closes after answering (Connection: close)
    size_t n = sock.read_some(asio::buffer(buf), ec);
    if (n > 0) raw.append(buf, n);
    if (ec) break;
  }
  size_t end = raw.find("\r\n\r\n");
  if (raw.size() < 12 || end == std::string::npos) return reply;
  reply.status = std::atoi(raw.substr(9, 3).c_str());
  reply.headers = raw.substr(0, end);
  reply.body = raw.substr(end + 4);
  return reply;
}

std::string urlEncode(const std::string& s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::optional<double> metricValue(const std::string& scrape, const std::string& series) {
  size_t pos = 0;
  while ((pos = scrape.find(series, pos)) != std::string::npos) {
    bool lineStart = pos == 0 || scrape[pos - 1] == '\n';
    size_t after = pos + series.size();
    if (lineStart && after < scrape.size() && scrape[after] == ' ')
      return std::strtod(scrape.c_str() + after + 1, nullptr);
    pos = after;
  }
  return std::nullopt;
}

std::optional<double> parkedPulls(uint16_t httpPort) {
  auto r = httpGet(httpPort, "/metrics");
  if (r.status != 200) return std::nullopt;
  return metricValue(r.body, "rmqnode_pull_parked{" + devBrokerLabels() + "}");
}

}  // namespace rmq::test
