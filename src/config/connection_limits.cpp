#include "config/connection_limits.h"

namespace rmq::config {

void ConnectionLimits::visit(FieldVisitor& v) {
  v.field({.name = "serverChannelMaxIdleTimeSeconds",
           .description = "Close a connection with nothing read or written this long; 0 = never",
           .min = 0, .max = 86400},
          serverChannelMaxIdleTimeSeconds);
  v.field({.name = "maxFrameSize",
           .description = "Largest accepted frame in bytes; a larger length prefix closes the connection",
           .min = 1024, .max = 1024LL * 1024 * 1024},
          maxFrameSize);
  v.field({.name = "partialFrameTimeoutSeconds",
           .description = "Close a connection whose frame is still incomplete this long after its first byte; 0 = never",
           .min = 0, .max = 86400},
          partialFrameTimeoutSeconds);
  v.field({.name = "connectionMaxPendingWriteBytes",
           .description = "Stop reading a connection's requests while more than this waits to be written to it; 0 = no bound",
           .min = 0, .max = 1LL << 40},
          connectionMaxPendingWriteBytes);
  v.field({.name = "connectionMaxInFlightRequests",
           .description = "Stop reading a connection's requests while this many of them are being handled; 0 = no bound",
           .min = 0, .max = 1 << 24},
          connectionMaxInFlightRequests);
  v.field({.name = "connectionWriteStallSeconds",
           .description = "Close a connection whose peer has not taken any written byte for this long; 0 = never",
           .min = 0, .max = 86400},
          connectionWriteStallSeconds);
}

}  // namespace rmq::config
