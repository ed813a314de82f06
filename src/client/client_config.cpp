#include "client/client_config.h"
#include "common/local_address.h"
#include "common/log.h"
#include "net/top_addressing.h"

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

std::optional<std::string> namesrvAddressServer(const ClientConfig& cfg) {
  if (!cfg.namesrvAddr.empty()) return std::nullopt;
  const char* env = std::getenv("NAMESRV_ADDR");
  if (env && *env) return std::nullopt;
  return net::addressServerUrlFromEnv();
}

std::vector<std::string> fetchNamesrvList(const std::string& url, std::chrono::milliseconds timeout) {
  auto fetched = net::fetchNamesrvAddr(url, timeout);
  if (!fetched) {
    log::warn("{}", fetched.error().message);
    return {};
  }
  return splitNamesrvAddr(*fetched);
}

std::vector<std::string> resolveNamesrvAddr(const ClientConfig& cfg) {
  if (!cfg.namesrvAddr.empty()) return splitNamesrvAddr(cfg.namesrvAddr);
  const char* env = std::getenv("NAMESRV_ADDR");
  if (env && *env) return splitNamesrvAddr(env);
  // Java's MQClientInstance.start: no name server given, ask the address server (TopAddressing).
  auto url = net::addressServerUrlFromEnv();
  if (!url) return {};
  return fetchNamesrvList(*url, cfg.rpcTimeout);
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
