#include "roles/namesrv/namesrv_config.h"

#include <cstdlib>

#include "config/process_config.h"

namespace rmq::namesrv {

NamesrvConfig::NamesrvConfig() {
  const char* home = std::getenv("ROCKETMQ_HOME");
  rocketmqHome = home ? home : "";
  kvConfigPath = config::homeDir() + "/namesrv/kvConfig.json";
  configStorePath = config::homeDir() + "/namesrv/namesrv.properties";
}

void NamesrvConfig::visit(config::FieldVisitor& v) {
  v.field({.name = "rocketmqHome", .description = "RocketMQ home directory (informational)",
           .aliases = {"rocketmq.home.dir"}},
          rocketmqHome);
  v.field({.name = "kvConfigPath",
           .description = "KV config file (PUT_KV_CONFIG); written on every change, read at start"},
          kvConfigPath);
  v.field({.name = "configStorePath",
           .description = "No effect: UPDATE_NAMESRV_CONFIG writes into the --config file (RocketMQ too "
                          "replaces this path by its -c file); without --config updates are not persisted"},
          configStorePath);
  v.field({.name = "bindAddress", .description = "Address the name server listens on"}, bindAddress);
  v.field({.name = "listenPort", .description = "Name server port", .min = 0, .max = 65535}, listenPort);
  v.field({.name = "serverWorkerThreads",
           .description = "Threads for blocking work (kvConfig.json writes); requests run on network threads",
           .min = 1, .max = 64},
          serverWorkerThreads);
  connection.visit(v);
  v.field({.name = "orderMessageEnable",
           .description = "Fill orderTopicConf in routes from KV namespace ORDER_TOPIC_CONFIG"},
          orderMessageEnable);
  v.field({.name = "brokerExpiredMillis",
           .description = "A broker not re-registered for this long is removed (RocketMQ: 120000)",
           .min = 100, .max = 86400000},
          brokerExpiredMillis);
  v.field({.name = "scanNotActiveBrokerInterval", .description = "How often expired brokers are looked for (ms)",
           .min = 10, .max = 3600000},
          scanNotActiveBrokerInterval);
}

}  // namespace rmq::namesrv
