#pragma once
// NamesrvConfig: the name server's settings with RocketMQ's key names (common.namesrv.NamesrvConfig
// + NettyServerConfig). Section title "namesrv". Process-wide settings (log dir/level, network
// threads) are in config::ProcessConfig.
#include <cstdint>
#include <string>

#include "config/connection_limits.h"
#include "config/field_visitor.h"

namespace rmq::namesrv {

struct NamesrvConfig {
  std::string rocketmqHome;        // default: $ROCKETMQ_HOME
  std::string kvConfigPath;        // default: $HOME/namesrv/kvConfig.json
  std::string configStorePath;     // no effect: updates go into the --config file (RocketMQ: -c)
  std::string bindAddress = "0.0.0.0";
  int32_t listenPort = 9876;
  int32_t serverWorkerThreads = 1;               // blocking work (kvConfig.json writes)
  config::ConnectionLimits connection;           // idle timeout, frame limit, ... (same keys)
  bool orderMessageEnable = false;
  int64_t brokerExpiredMillis = 120000;          // Java's BROKER_CHANNEL_EXPIRED_TIME
  int64_t scanNotActiveBrokerInterval = 10000;   // Java 4.x scans every 10 s (first after 5 s)

  NamesrvConfig();
  void visit(config::FieldVisitor& v);
};

}  // namespace rmq::namesrv
