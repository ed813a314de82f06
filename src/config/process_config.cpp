#include "config/process_config.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace rmq::config {

std::string homeDir() {
  const char* home = std::getenv("HOME");
  return home && *home ? home : "/tmp";
}

void ProcessConfig::visit(FieldVisitor& v) {
  v.field({.name = "logDir", .description = "Directory of namesrv.log / broker.log (created if missing)"},
          logDir);
  v.field({.name = "logLevel", .description = "Log level",
           .choices = {"debug", "info", "warn", "error", "DEBUG", "INFO", "WARN", "ERROR"}},
          logLevel);
  v.field({.name = "serverSelectorThreads",
           .description = "Network threads (one io_context each); 0 = one per core, at most 4",
           .min = 0, .max = 64},
          serverSelectorThreads);
  v.field({.name = "shutdownAwaitMillis",
           .description = "On SIGTERM/SIGINT, how long in-flight requests may take before connections close",
           .min = 0, .max = 600000},
          shutdownAwaitMillis);
  v.field({.name = "httpListenPort",
           .description = "HTTP port of /metrics, /healthz, /readyz and the console; 0 = off (dev node: 8080)",
           .min = 0, .max = 65535},
          httpListenPort);
  v.field({.name = "httpBindAddress", .description = "Address the HTTP port binds to (0.0.0.0 = every interface)"},
          httpBindAddress);
  v.field({.name = "consoleReadOnly",
           .description = "Console: refuse writes (create/update/delete topic, reset offset, send a test message)"},
          consoleReadOnly);
}

size_t ProcessConfig::ioThreads() const {
  if (serverSelectorThreads > 0) return static_cast<size_t>(serverSelectorThreads);
  return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
}

}  // namespace rmq::config
