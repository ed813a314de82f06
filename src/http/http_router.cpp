#include "http/http_router.h"

namespace rmq::http {

void HttpRouter::add(std::string method, std::string path, HttpHandler handler) {
  routes_.push_back(Route{std::move(method), std::move(path), std::move(handler)});
}

const HttpRouter::Route* HttpRouter::find(const HttpRequest& request, bool& pathKnown) const {
  const Route* best = nullptr;
  size_t bestLen = 0;
  pathKnown = false;
  for (const auto& r : routes_) {
    bool prefix = !r.path.empty() && r.path.back() == '/';
    bool match = prefix ? request.path.starts_with(r.path) : request.path == r.path;
    if (!match) continue;
    pathKnown = true;
    if (!r.method.empty() && r.method != request.method) continue;
    if (!best || r.path.size() > bestLen) {
      best = &r;
      bestLen = r.path.size();
    }
  }
  return best;
}

asio::awaitable<HttpResponse> HttpRouter::route(const HttpRequest& request) const {
  bool pathKnown = false;
  const Route* r = find(request, pathKnown);
  if (!r) {
    if (pathKnown) co_return HttpResponse::error(405, "method not allowed");
    co_return HttpResponse::error(404, "not found: " + request.path);
  }
  co_return co_await r->handler(request);
}

}  // namespace rmq::http
