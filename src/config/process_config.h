#pragma once
// Settings of the rmqnode process itself, shared by every role it runs: logging and the number
// of network threads. Section title "process"; its keys may also appear at the top level of a
// config file next to the role's keys.
#include <cstdint>
#include <string>

#include "config/field_visitor.h"

namespace rmq::config {

// $HOME (or "/tmp" when unset), for defaults such as $HOME/logs/rocketmqlogs.
std::string homeDir();

struct ProcessConfig {
  std::string logDir = homeDir() + "/logs/rocketmqlogs";
  std::string logLevel = "info";
  int32_t serverSelectorThreads = 0;      // network (io_context) threads; 0 = one per core, at most 4
  int64_t shutdownAwaitMillis = 3000;     // graceful stop: how long in-flight requests may finish
  // The HTTP endpoint (/metrics, /healthz, /readyz, the console): 0 = off. The dev node
  // (--role=namesrv,master) defaults to kDevHttpPort when the config does not set it.
  int32_t httpListenPort = 0;
  std::string httpBindAddress = "127.0.0.1";
  bool consoleReadOnly = false;  // the console's writes (create topic, reset offset, send) refused

  static constexpr int32_t kDevHttpPort = 8080;

  void visit(FieldVisitor& v);
  // Threads to give the IoPool (resolves 0 = auto).
  size_t ioThreads() const;
};

}  // namespace rmq::config
