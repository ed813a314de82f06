#pragma once
// The one table of Apache RocketMQ config keys that rmqnode knows but does not use, each with the
// reason. A user's broker.conf / namesrv.properties from a Java cluster holds such keys (thread-pool
// sizes, Netty buffers, DLedger, ...); Java ignores keys it does not know, so refusing them would
// make every migrating user edit every file. Loaders accept a key from this table (with one warning
// naming the reason) only when no config section claims it: a key a section implements always
// takes effect, so e.g. `serverWorkerThreads` configures the name server but is ignored, with its
// reason, by a broker. A few values are refused outright (`enableDLegerCommitLog=true`).
//
// Keys are those of RocketMQ 4.x's BrokerConfig, MessageStoreConfig, NettyServerConfig,
// NettyClientConfig and NamesrvConfig (setters, as MixAll.properties2Object reads them), the two
// address-server system properties BrokerStartup copies from the file, and 3.x keys still found
// in circulating example files.
#include <span>
#include <string_view>

namespace rmq::config {

struct IgnoredKey {
  std::string_view key;
  std::string_view origin;  // where RocketMQ defines it: "BrokerConfig", "MessageStoreConfig", ...
  std::string_view reason;  // why rmqnode does not use it (shown in warnings and --print-config)
  // When the value equals refuseValue (case-insensitive), loading fails with `refusal`.
  std::string_view refuseValue = {};
  std::string_view refusal = {};
};

std::span<const IgnoredKey> ignoredKeys();
// The entry for `key`, or nullptr.
const IgnoredKey* findIgnoredKey(std::string_view key);

}  // namespace rmq::config
