#include "net/top_addressing.h"

#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/experimental/as_tuple.hpp>
#include <asio/co_spawn.hpp>
#include <asio/connect.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "common/response_code.h"

namespace rmq::net {
namespace {

struct Url {
  std::string host, port, path;
};

std::optional<Url> parseUrl(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) return std::nullopt;
  url.remove_prefix(kScheme.size());
  size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  Url u;
  u.path = slash == std::string_view::npos ? "/" : std::string(url.substr(slash));
  size_t colon = authority.rfind(':');
  u.host = std::string(authority.substr(0, colon));
  u.port = colon == std::string_view::npos ? "80" : std::string(authority.substr(colon + 1));
  if (u.host.empty() || u.port.empty()) return std::nullopt;
  return u;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// A chunked body decoded (sizes in hex, extensions ignored); what is there when it ends early.
std::string unchunk(std::string_view in) {
  std::string out;
  while (true) {
    size_t eol = in.find("\r\n");
    if (eol == std::string_view::npos) break;
    size_t size = std::strtoul(std::string(in.substr(0, eol)).c_str(), nullptr, 16);
    in.remove_prefix(eol + 2);
    if (size == 0 || size > in.size()) break;
    out.append(in.substr(0, size));
    in.remove_prefix(std::min(in.size(), size + 2));
  }
  return out;
}

asio::awaitable<void> exchange(asio::ip::tcp::socket& sock, Url u, std::string& raw, asio::error_code& result) {
  try {
    asio::ip::tcp::resolver resolver(sock.get_executor());
    auto endpoints = co_await resolver.async_resolve(u.host, u.port, asio::use_awaitable);
    co_await asio::async_connect(sock, endpoints, asio::use_awaitable);
    std::string request = "GET " + u.path + " HTTP/1.1\r\nHost: " + u.host + ":" + u.port +
                          "\r\nConnection: close\r\nAccept: */*\r\n\r\n";
    co_await asio::async_write(sock, asio::buffer(request), asio::use_awaitable);
    char buf[4096];
    for (;;) {  // Connection: close, so the answer ends with the connection
      auto [ec, n] = co_await sock.async_read_some(asio::buffer(buf), asio::experimental::as_tuple(asio::use_awaitable));
      raw.append(buf, n);
      if (ec) break;
      if (raw.size() > 1 << 20) break;  // an address list is a few hundred bytes
    }
    result = {};
  } catch (const std::system_error& e) {
    result = e.code();
  }
}

}  // namespace

std::string addressServerUrl(std::string_view domain, std::string_view subGroup) {
  if (domain.find(':') != std::string_view::npos && domain.find(':') > 0)
    return "http://" + std::string(domain) + "/rocketmq/" + std::string(subGroup);
  return "http://" + std::string(domain) + ":8080/rocketmq/" + std::string(subGroup);
}

std::optional<std::string> addressServerUrlFromEnv() {
  auto env = [](const char* javaName, const char* shellName) -> const char* {
    const char* v = std::getenv(javaName);
    if (!v || !*v) v = std::getenv(shellName);
    return v && *v ? v : nullptr;
  };
  const char* domain = env("rocketmq.namesrv.domain", "ROCKETMQ_NAMESRV_DOMAIN");
  if (!domain) return std::nullopt;
  const char* sub = env("rocketmq.namesrv.domain.subgroup", "ROCKETMQ_NAMESRV_DOMAIN_SUBGROUP");
  return addressServerUrl(domain, sub ? std::string_view(sub) : kDefaultAddressServerSubGroup);
}

Result<std::string> fetchNamesrvAddr(const std::string& url, std::chrono::milliseconds timeout) {
  auto u = parseUrl(url);
  if (!u) return makeError(ResponseCode::SYSTEM_ERROR, "address server URL " + url + " is not http://host[:port]/path");
  // Declared before the io_context: an exchange cut by the timeout is destroyed with it.
  std::string raw;
  asio::error_code result = asio::error::timed_out;
  asio::io_context io;
  asio::ip::tcp::socket sock(io);
  asio::co_spawn(io, exchange(sock, *u, raw, result), asio::detached);
  io.run_for(timeout);
  if (!io.stopped()) result = asio::error::timed_out;  // the exchange did not finish in time
  size_t headEnd = raw.find("\r\n\r\n");
  if (result || raw.size() < 12 || headEnd == std::string::npos) {
    std::string why = result ? result.message() : "no HTTP answer";
    return makeError(ResponseCode::SYSTEM_ERROR, "fetch name server address from " + url + " failed: " + why);
  }
  int status = std::atoi(raw.substr(9, 3).c_str());
  if (status != 200)
    return makeError(ResponseCode::SYSTEM_ERROR,
                     "fetch name server address from " + url + " failed. statusCode=" + std::to_string(status));
  std::string head = raw.substr(0, headEnd);
  for (auto& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string body = raw.substr(headEnd + 4);
  if (head.find("transfer-encoding: chunked") != std::string::npos) body = unchunk(body);
  std::string_view text = trim(body);
  return std::string(text.substr(0, text.find_first_of("\r\n")));
}

}  // namespace rmq::net
