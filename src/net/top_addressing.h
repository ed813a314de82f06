#pragma once
// TopAddressing: the name-server address server of RocketMQ (Java's TopAddressing, MixAll.getWSAddr).
// An HTTP server answers GET http://<domain>[:8080]/rocketmq/<subgroup> with "host:port;host:port";
// brokers with fetchNamesrvAddrByAddressServer (and clients without a namesrvAddr) take their name
// servers from it. fetchNamesrvAddr() blocks (its own io_context, bounded by `timeout`): call it
// from a thread of its own or at start-up, never on a network thread.
#include <chrono>
#include <optional>
#include <string>

#include "common/result.h"

namespace rmq::net {

inline constexpr std::string_view kDefaultAddressServerDomain = "jmenv.tbsite.net";  // MixAll.WS_DOMAIN_NAME
inline constexpr std::string_view kDefaultAddressServerSubGroup = "nsaddr";          // MixAll.WS_DOMAIN_SUBGROUP

// MixAll.getWSAddr: "http://<domain>:8080/rocketmq/<subgroup>", or without ":8080" when the domain
// names its port.
std::string addressServerUrl(std::string_view domain, std::string_view subGroup);

// The address server a client uses when no name server is configured: the domain (and subgroup)
// from the environment, under Java's system-property names `rocketmq.namesrv.domain` /
// `rocketmq.namesrv.domain.subgroup` or as ROCKETMQ_NAMESRV_DOMAIN / ROCKETMQ_NAMESRV_DOMAIN_SUBGROUP.
// nullopt when no domain is set (Java would try jmenv.tbsite.net; we do not guess).
std::optional<std::string> addressServerUrlFromEnv();

// GET `url` (http://host[:port]/path); the first line of the trimmed body of a 200 answer
// (TopAddressing.clearNewLine). Errors name the URL and the cause (status, timeout, connect).
Result<std::string> fetchNamesrvAddr(const std::string& url, std::chrono::milliseconds timeout);

}  // namespace rmq::net
