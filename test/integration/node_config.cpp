#include "node_config.h"

namespace rmq::test {

std::string logDirToml(const NodeProcess& node, uint16_t httpPort) {
  return "logDir = \"" + node.path("logs") + "\"\nhttpListenPort = " + std::to_string(httpPort) +
         "\nhttpBindAddress = \"127.0.0.1\"\n";
}

std::string namesrvToml(const NodeProcess& node, uint16_t port, const std::string& extra, uint16_t httpPort,
                        const std::string& host) {
  return logDirToml(node, httpPort) +
         "[namesrv]\n"
         "bindAddress = \"" + host + "\"\n"
         "listenPort = " + std::to_string(port) + "\n" +
         "kvConfigPath = \"" + node.path("namesrv/kvConfig.json") + "\"\n" +
         "configStorePath = \"" + node.path("namesrv/namesrv.properties") + "\"\n" + extra + "\n";
}

std::string brokerToml(const NodeProcess& node, const BrokerToml& b) {
  std::string toml = "[broker]\n"
                     "brokerClusterName = \"" + b.cluster + "\"\n" +
                     "brokerName = \"" + b.name + "\"\n" +
                     "brokerId = " + std::to_string(b.id) + "\n" +
                     "brokerIP1 = \"" + b.ip + "\"\n" +
                     "brokerIP2 = \"" + b.ip + "\"\n" +
                     "listenPort = " + std::to_string(b.port) + "\n";
  if (!b.namesrvAddr.empty()) toml += "namesrvAddr = \"" + b.namesrvAddr + "\"\n";
  toml += b.extraBroker + "\n[store]\n";
  if (!b.role.empty()) toml += "brokerRole = \"" + b.role + "\"\n";
  return toml + "storePathRootDir = \"" + node.path("store") + "\"\n" +
         "mappedFileSizeCommitLog = " + std::to_string(b.commitLogFileSize) + "\n" + b.extraStore + "\n";
}

}  // namespace rmq::test
