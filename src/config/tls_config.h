#pragma once
// The TLS keys of RocketMQ's TlsSystemConfig, under Java's names, for the whole process (Java
// keeps them in static fields: one set per JVM). Config section "tls" of a node, so they may be
// written in the --config file where Java takes -D system properties: properties
// `tls.server.mode=enforcing`; TOML `"tls.server.mode" = "enforcing"` (quoted: a bare dotted key
// is a nested table in TOML) or, in a `[tls]` table, `"server.mode" = "enforcing"`. Not part of
// GET_BROKER_CONFIG / GET_NAMESRV_CONFIG answers (key passwords), nor changeable at run time.
// `tls.config.file` (default /etc/rocketmq/tls.properties) is then read as Java's
// TlsHelper.extractTlsConfigFromFile reads it: when it exists, its values win for every key but
// tls.server.mode, tls.enable and tls.config.file itself.
#include <string>

#include "common/result.h"
#include "config/field_visitor.h"

namespace rmq::config {

struct TlsConfig {
  std::string serverMode = "permissive";  // tls.server.mode: disabled | permissive | enforcing
  bool enable = false;                    // tls.enable (also NettyClientConfig's useTLS): the broker's clients use TLS
  std::string configFile = "/etc/rocketmq/tls.properties";  // tls.config.file
  bool testModeEnable = true;             // tls.test.mode.enable
  std::string serverNeedClientAuth = "none";  // tls.server.need.client.auth: none | optional | require
  std::string serverKeyPath, serverKeyPassword, serverCertPath;
  bool serverAuthClient = false;
  std::string serverTrustCertPath;
  std::string clientKeyPath, clientKeyPassword, clientCertPath;
  bool clientAuthServer = false;
  std::string clientTrustCertPath;

  void visit(FieldVisitor& v);

  // Reads tls.config.file when it exists (a missing file is skipped, as Java); returns the path
  // read, or "" when there was none. An unreadable or malformed file is an error naming it.
  Result<std::string> readConfigFile();
};
// The net:: settings these keys make: net/tls_settings.h (rmq_config stays free of rmq_net, so the
// fuzz build of the config loaders never compiles the servers).

}  // namespace rmq::config
