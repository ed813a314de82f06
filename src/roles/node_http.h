#pragma once
// The node's own HTTP routes, shared by every role the process runs:
//   GET /healthz  liveness: 200 "ok" while the process serves HTTP at all.
//   GET /readyz   readiness: 200 when every role is ready (broker: store recovered and registered
//                 with a name server; name server: serving), else 503 naming what is not.
//   GET /metrics  Prometheus text 0.0.4: process_* figures, then each role's collector.
// Handlers run on the network threads; each role's functions must be safe there (and before the
// role started: the HTTP server starts first, so /readyz answers 503 during store recovery).
#include <functional>
#include <string>
#include <vector>

#include "http/http_router.h"
#include "metrics/text_writer.h"

namespace rmq::node {

struct RoleEndpoint {
  std::string name;                                   // "namesrv", "broker"
  std::function<std::string()> notReadyReason;        // "" = ready
  std::function<void(metrics::TextWriter&)> metrics;  // may be empty
};

void addNodeRoutes(http::HttpRouter& router, std::vector<RoleEndpoint> roles);

}  // namespace rmq::node
