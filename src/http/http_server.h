#pragma once
// HttpServer: HTTP/1.1 on the IoPool's io_contexts (the remoting server's threads). One accept
// loop on pool.at(0); each connection is one coroutine on an io_context picked round-robin, plus
// a watchdog timer; no thread per connection. Requests go to an HttpRouter (routes registered
// before start()). Keep-alive and pipelining (answered in order); size limits (431 / 413);
// malformed requests get 400 and the connection closes; a request not complete within
// requestTimeout of its first byte (slowloris), or a keep-alive connection idle for idleTimeout,
// is closed.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "common/result.h"
#include "http/http_router.h"
#include "http/request_parser.h"
#include "net/io_pool.h"

namespace rmq::http {

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0 = pick a free port (see port())
  ParseLimits limits;
  std::chrono::milliseconds requestTimeout{10000};  // first byte of a request -> complete request
  std::chrono::milliseconds idleTimeout{60000};     // keep-alive connection with no request
  std::chrono::milliseconds writeTimeout{30000};    // a response not taken by the peer
  size_t maxConnections = 512;                      // more are accepted and closed at once
};

class HttpServer {
 public:
  HttpServer(net::IoPool& pool, HttpServerOptions options, std::shared_ptr<const HttpRouter> router);
  ~HttpServer();  // stop()

  // Binds and starts accepting; the error names the address when bind fails.
  Result<void> start();
  uint16_t port() const;
  size_t connectionCount() const;
  // Stops accepting, closes every connection and waits (bounded) until their coroutines ended.
  // Blocking: call from a non-IoPool thread, before pool.stop().
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rmq::http
