#pragma once
// DevNode: one `rmqnode --role=namesrv,master` on 127.0.0.1 with free ports, a store in its temp
// dir, SQL92 enabled and 1 s delay levels, for the client integration tests. start() waits until
// the broker is registered (TBW102 routable) so sends work at once.
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "client/admin_client.h"
#include "client/client_config.h"
#include "node_process.h"

namespace rmq::test {

struct DevNode {
  NodeProcess node;
  uint16_t nsPort = 0;
  uint16_t brokerPort = 0;
  std::string namesrvAddr;
  std::string brokerAddr;

  explicit DevNode(const std::string& extraBroker = "");
  bool start();
  client::ClientConfig clientConfig() const {
    client::ClientConfig c;
    c.namesrvAddr = namesrvAddr;
    c.clientIp = "127.0.0.1";
    return c;
  }
  // Creates `topic` with `queues` read/write queues on the broker and waits until it is routable.
  bool createTopic(const std::string& topic, int queues);
};

// A broker port whose VIP (port-2) and HA (port+1) neighbours look free too.
uint16_t freeBrokerPort();

// Polls `cond` every 50 ms until true or `timeout`; returns the last value.
bool waitUntil(const std::function<bool()>& cond, std::chrono::milliseconds timeout);

// A topic/group name unique to this process and call.
std::string uniqueName(const std::string& prefix);

}  // namespace rmq::test
