#pragma once
// What one client connection may cost a server (name server and broker alike): the keys of their
// config sections that become net::ConnectionOptions (roles/connection_options.h). Idle timeout
// and frame limit are RocketMQ's (serverChannelMaxIdleTimeSeconds, com.rocketmq.remoting.
// frameMaxLength); the others are rmqnode's defences against slow or hostile peers.
#include <cstdint>

#include "config/field_visitor.h"

namespace rmq::config {

struct ConnectionLimits {
  int32_t serverChannelMaxIdleTimeSeconds = 120;  // 0 = never close idle connections
  int64_t maxFrameSize = 16 * 1024 * 1024;
  int32_t partialFrameTimeoutSeconds = 30;        // 0 = never
  int64_t connectionMaxPendingWriteBytes = 8 * 1024 * 1024;  // 0 = unbounded
  int32_t connectionMaxInFlightRequests = 4096;   // 0 = unbounded
  int32_t connectionWriteStallSeconds = 60;       // 0 = never

  void visit(FieldVisitor& v);
};

}  // namespace rmq::config
