#include "client/client_config.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fmt/format.h>

namespace rmq::client {

std::vector<std::string> splitNamesrvAddr(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ';' || c == ',' || c == ' ' || c == '\t' || c == '\n') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::vector<std::string> resolveNamesrvAddr(const ClientConfig& cfg) {
  if (!cfg.namesrvAddr.empty()) return splitNamesrvAddr(cfg.namesrvAddr);
  const char* env = std::getenv("NAMESRV_ADDR");
  return env ? splitNamesrvAddr(env) : std::vector<std::string>{};
}

std::string localIpv4() {
  ifaddrs* list = nullptr;
  std::string found = "127.0.0.1";
  if (getifaddrs(&list) != 0) return found;
  for (ifaddrs* it = list; it; it = it->ifa_next) {
    if (!it->ifa_addr || it->ifa_addr->sa_family != AF_INET) continue;
    auto* sin = reinterpret_cast<sockaddr_in*>(it->ifa_addr);
    uint32_t ip = ntohl(sin->sin_addr.s_addr);
    if ((ip >> 24) == 127) continue;
    char buf[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf);
    found = buf;
    break;
  }
  freeifaddrs(list);
  return found;
}

std::string buildClientId(const std::string& ip, const std::string& instanceName, const std::string& unitName) {
  std::string id = ip + "@" + instanceName;
  if (!unitName.empty()) id += "@" + unitName;
  return id;
}

std::string uniqueInstanceName() {
  auto nanos = std::chrono::steady_clock::now().time_since_epoch().count();
  return fmt::format("{}#{}", ::getpid(), nanos);
}

}  // namespace rmq::client
