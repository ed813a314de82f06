#pragma once
// The host's first non-loopback IPv4 address (like Java's RemotingUtil.getLocalAddress), or
// "127.0.0.1" when there is none. Used for brokerIP1 defaults and client ids.
#include <string>

namespace rmq {
std::string localIPv4();
}  // namespace rmq
