#pragma once
// HttpRouter: maps method + path to a handler coroutine. Roles and the console register their
// routes at start-up (before the server starts); route() is then read-only and thread-safe.
// A path ending in '/' matches every path below it (longest prefix wins); others match exactly.
#include <functional>
#include <string>
#include <vector>

#include <cstddef>  // before asio (see net/async_result.h)
#include <asio/awaitable.hpp>

#include "http/http_message.h"

namespace rmq::http {

using HttpHandler = std::function<asio::awaitable<HttpResponse>(const HttpRequest&)>;

class HttpRouter {
 public:
  // method "" = any method.
  void add(std::string method, std::string path, HttpHandler handler);
  // 404 for an unknown path, 405 for a known path with another method.
  asio::awaitable<HttpResponse> route(const HttpRequest& request) const;

 private:
  struct Route {
    std::string method;
    std::string path;
    HttpHandler handler;
  };
  const Route* find(const HttpRequest& request, bool& pathKnown) const;
  std::vector<Route> routes_;
};

}  // namespace rmq::http
