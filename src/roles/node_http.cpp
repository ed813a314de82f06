#include "roles/node_http.h"

#include <memory>

#include "metrics/process_metrics.h"

namespace rmq::node {

void addNodeRoutes(http::HttpRouter& router, std::vector<RoleEndpoint> roles) {
  auto shared = std::make_shared<const std::vector<RoleEndpoint>>(std::move(roles));
  router.add("GET", "/healthz", [](const http::HttpRequest&) -> asio::awaitable<http::HttpResponse> {
    co_return http::HttpResponse::text("ok\n");
  });
  router.add("GET", "/readyz", [shared](const http::HttpRequest&) -> asio::awaitable<http::HttpResponse> {
    std::string body;
    bool ready = true;
    for (const auto& r : *shared) {
      std::string reason = r.notReadyReason ? r.notReadyReason() : std::string();
      ready = ready && reason.empty();
      body += r.name + ": " + (reason.empty() ? "ready" : reason) + "\n";
    }
    co_return http::HttpResponse::text((ready ? "ready\n" : "not ready\n") + body, ready ? 200 : 503);
  });
  router.add("GET", "/metrics", [shared](const http::HttpRequest&) -> asio::awaitable<http::HttpResponse> {
    metrics::TextWriter w;
    metrics::writeProcessMetrics(w);
    for (const auto& r : *shared)
      if (r.metrics) r.metrics(w);
    auto response = http::HttpResponse::text(w.take());
    response.contentType = std::string(metrics::TextWriter::kContentType);
    co_return response;
  });
}

}  // namespace rmq::node
