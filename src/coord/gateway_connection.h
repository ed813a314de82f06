#pragma once
// GatewayConnection: one HTTP/1.1 connection to one etcd endpoint ("host:port"), one request at a
// time (the caller owns it while a request runs). post() connects when needed, writes a JSON POST
// and reads the whole answer, all within `timeout`: a watchdog timer closes the socket then, so no
// step can hang. Keep-alive: after an answer that allows it the connection carries the next
// request; a kept connection the server closed meanwhile (write fails, or EOF before any answer
// byte) is reconnected once and the request sent again.
#include <cstddef>  // before asio: its allocator choice depends on libstdc++ macros (ODR)
#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <asio/ip/tcp.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq::coord {

struct HttpAnswer {
  int status = 0;
  std::string body;
};

class GatewayConnection {
 public:
  GatewayConnection(asio::any_io_executor ex, std::string endpoint);
  ~GatewayConnection();
  GatewayConnection(const GatewayConnection&) = delete;
  GatewayConnection& operator=(const GatewayConnection&) = delete;

  // One POST of a JSON body to `path`. Errors, all kEtcdUnavailable (message names the endpoint and
  // the cause): connect failure, timeout, connection closed, malformed answer. Any HTTP status is an answer.
  asio::awaitable<Result<HttpAnswer>> post(std::string_view path, std::string_view body, std::chrono::milliseconds timeout);

  // One POST whose answer is a stream of '\n'-terminated JSON messages (etcd's watch): each
  // complete message goes to `onMessage` until it returns true (-> true), or `timeout` passes with
  // none accepted (-> false, not an error). The connection is closed afterwards either way (the
  // stream would go on). Errors as post(); a stream that ends or a non-200 answer: kEtcdUnavailable.
  asio::awaitable<Result<bool>> stream(std::string_view path, std::string_view body, std::chrono::milliseconds timeout,
                                       std::function<bool(std::string_view)> onMessage);

  // Connected, and the last answer allowed another request on this connection.
  bool reusable() const;
  // Closes the socket: a post() in progress fails at once ("closed").
  void close();
  const std::string& endpoint() const { return endpoint_; }

 private:
  struct Wire;
  enum class Outcome { Answered, Failed, StaleKeepAlive };
  asio::awaitable<Result<void>> connect();
  static std::string requestText(std::string_view path, std::string_view body, const std::string& host);
  asio::awaitable<Outcome> exchange(const std::string& request, HttpAnswer& answer, std::string& error);
  std::string cause(const std::string& what) const;

  std::chrono::milliseconds timeout_{0};  // of the post() in progress

  asio::any_io_executor ex_;
  std::string endpoint_;
  std::shared_ptr<Wire> wire_;
  bool keepAlive_ = false;
};

}  // namespace rmq::coord
