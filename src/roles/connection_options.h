#pragma once
// config::ConnectionLimits (a server's config keys) -> net::ConnectionOptions.
#include "config/connection_limits.h"
#include "net/connection.h"

namespace rmq {

inline net::ConnectionOptions connectionOptions(const config::ConnectionLimits& l) {
  net::ConnectionOptions o;
  o.maxFrameSize = static_cast<size_t>(l.maxFrameSize);
  o.idleTimeout = std::chrono::seconds(l.serverChannelMaxIdleTimeSeconds);
  o.partialFrameTimeout = std::chrono::seconds(l.partialFrameTimeoutSeconds);
  o.maxPendingWriteBytes = static_cast<size_t>(l.connectionMaxPendingWriteBytes);
  o.maxInFlightRequests = static_cast<size_t>(l.connectionMaxInFlightRequests);
  o.writeStallTimeout = std::chrono::seconds(l.connectionWriteStallSeconds);
  return o;
}

}  // namespace rmq
