#include "common/message.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "common/message_id.h"

namespace rmq {

std::string HostAddress::ipString() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, ip.data(), buf, sizeof buf);
  return buf;
}

std::string HostAddress::toString() const {
  return v6 ? fmt::format("[{}]:{}", ipString(), port) : fmt::format("{}:{}", ipString(), port);
}

bool HostAddress::parse(std::string_view text, HostAddress& out) {
  HostAddress a;
  std::string_view host = text, portText;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos) return false;
    host = text.substr(1, close - 1);
    if (close + 1 < text.size()) {
      if (text[close + 1] != ':') return false;
      portText = text.substr(close + 2);
    }
    a.v6 = true;
  } else if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
    if (text.find(':') == colon) {  // exactly one colon: IPv4 with a port
      host = text.substr(0, colon);
      portText = text.substr(colon + 1);
    } else {
      a.v6 = true;  // bare IPv6 without port
    }
  }
  std::string hostStr(host);
  if (inet_pton(a.v6 ? AF_INET6 : AF_INET, hostStr.c_str(), a.ip.data()) != 1) return false;
  if (!portText.empty()) {
    auto [p, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), a.port);
    if (ec != std::errc() || p != portText.data() + portText.size() || a.port < 0 || a.port > 65535) return false;
  }
  out = a;
  return true;
}

HostAddress HostAddress::ipv4(uint32_t hostOrderIp, int32_t port) {
  HostAddress a;
  a.ip[0] = static_cast<uint8_t>(hostOrderIp >> 24);
  a.ip[1] = static_cast<uint8_t>(hostOrderIp >> 16);
  a.ip[2] = static_cast<uint8_t>(hostOrderIp >> 8);
  a.ip[3] = static_cast<uint8_t>(hostOrderIp);
  a.port = port;
  return a;
}

// Duplicated names can occur (a batch item's WAIT plus the batch-level WAIT): like Java's HashMap
// decode, the last occurrence is the effective one.
const std::string* findProperty(const Properties& p, std::string_view name) {
  for (auto it = p.rbegin(); it != p.rend(); ++it)
    if (it->first == name) return &it->second;
  return nullptr;
}

void setProperty(Properties& p, std::string_view name, std::string_view value) {
  for (auto it = p.rbegin(); it != p.rend(); ++it)
    if (it->first == name) { it->second.assign(value); return; }
  p.emplace_back(std::string(name), std::string(value));
}

bool eraseProperty(Properties& p, std::string_view name) {
  auto n = std::erase_if(p, [&](const auto& kv) { return kv.first == name; });
  return n > 0;
}

std::string MessageExt::offsetMsgId() const { return createOffsetMsgId(storeHost, commitLogOffset); }

}  // namespace rmq
