#include "client_node.h"

#include <atomic>
#include <unistd.h>

namespace rmq::test {

uint16_t freeBrokerPort() {
  for (int i = 0; i < 50; ++i) {
    uint16_t p = freePort();
    if (p > 1030 && p < 65000 && !portAccepts(p - 2) && !portAccepts(p + 1)) return p;
  }
  return freePort();
}

DevNode::DevNode(const std::string& extraBroker) {
  nsPort = freePort();
  brokerPort = freeBrokerPort();
  namesrvAddr = "127.0.0.1:" + std::to_string(nsPort);
  brokerAddr = "127.0.0.1:" + std::to_string(brokerPort);
  std::string toml = namesrvToml(node, nsPort) +
                     "[broker]\n"
                     "brokerClusterName = \"DefaultCluster\"\n"
                     "brokerName = \"broker-a\"\n"
                     "brokerIP1 = \"127.0.0.1\"\n"
                     "listenPort = " + std::to_string(brokerPort) + "\n" +
                     "namesrvAddr = \"" + namesrvAddr + "\"\n" +
                     "enablePropertyFilter = true\n" + extraBroker +
                     "[store]\n"
                     "storePathRootDir = \"" + node.path("store") + "\"\n" +
                     "messageDelayLevel = \"1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s 1s\"\n";
  node.writeFile("node.toml", toml);
  node.setArgs({"--role=namesrv,master", "-c", node.path("node.toml")});
  node.waitForPorts({nsPort, brokerPort});
}

bool DevNode::start() {
  if (!node.start(std::chrono::seconds(30))) return false;
  client::AdminClient admin(clientConfig());
  if (!admin.start()) return false;
  bool ok = waitUntil([&] { return admin.run(admin.asyncTopicRoute("TBW102")).ok(); }, std::chrono::seconds(15));
  admin.shutdown();
  return ok;
}

bool DevNode::createTopic(const std::string& topic, int queues) {
  client::AdminClient admin(clientConfig());
  if (!admin.start()) return false;
  client::TopicConfigSpec spec;
  spec.topicName = topic;
  spec.readQueueNums = spec.writeQueueNums = queues;
  auto r = admin.run(admin.asyncCreateTopicOnBroker(brokerAddr, spec));
  bool ok = r.ok() && waitUntil([&] { return admin.run(admin.asyncTopicRoute(topic)).ok(); }, std::chrono::seconds(10));
  admin.shutdown();
  return ok;
}

bool waitUntil(const std::function<bool()>& cond, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (cond()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string uniqueName(const std::string& prefix) {
  static std::atomic<int> n{0};
  return prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(n++);
}

}  // namespace rmq::test
