#pragma once
// Broker integration-test fixture: a real `rmqnode --role=namesrv,master` (dev mode) in a temp
// dir with free ports, a client (our RemotingClient) and request builders over the client
// library's header encoders.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/message.h"
#include "common/result.h"
#include "net/io_pool.h"
#include "net/remoting_client.h"
#include "node_process.h"

namespace rmq::test {

class BrokerNode {
 public:
  // extraBroker / extraStore: TOML lines for the [broker] / [store] tables.
  explicit BrokerNode(std::string extraBroker = "", std::string extraStore = "");
  bool start();  // false (with the child's stderr printed) when it does not come up
  std::string brokerAddr() const { return "127.0.0.1:" + std::to_string(brokerPort); }
  std::string namesrvAddr() const { return "127.0.0.1:" + std::to_string(nsPort); }
  std::string brokerLog() const { return proc.log("broker.log"); }

  NodeProcess proc;
  uint16_t nsPort = 0;
  uint16_t brokerPort = 0;
};

// Older spelling used by the admin/delay tests. Do not include this header together with
// client_node.h (which has its own DevNode).
using DevNode = BrokerNode;

// A client with its own network thread; server-initiated requests go to raw().dispatcher().
class TestClient {
 public:
  TestClient();
  ~TestClient();
  net::RemotingClient& raw() { return *client_; }
  Result<net::RemotingCommand> call(const std::string& addr, net::RemotingCommand req,
                                    std::chrono::milliseconds timeout = std::chrono::seconds(10));

 private:
  std::unique_ptr<net::IoPool> pool_;
  std::unique_ptr<net::RemotingClient> client_;
};

struct SendSpec {
  std::string topic;
  std::string body = "hello";
  std::string tags;
  std::string keys;
  int32_t queueId = 0;
  int code = 310;  // 10 or 310 (320 = use batchRequest)
  std::string defaultTopic = "TBW102";
  std::vector<std::pair<std::string, std::string>> extraProps;
  int32_t reconsumeTimes = 0;
  std::optional<int32_t> maxReconsumeTimes;
  int64_t bornTimestamp = 1700000000000;
};
net::RemotingCommand sendRequest(const SendSpec& s);
net::RemotingCommand batchRequest(const std::string& topic, int32_t queueId, const std::vector<Message>& msgs);

struct PullSpec {
  std::string group = "cg";
  std::string topic;
  int32_t queueId = 0;
  int64_t offset = 0;
  int32_t maxMsgNums = 32;
  int32_t sysFlag = 0x4;  // SUBSCRIPTION (expression carried in the request)
  std::string subscription = "*";
  std::string expressionType = "TAG";
  int64_t suspendMillis = 0;
  int64_t commitOffset = 0;
};
net::RemotingCommand pullRequest(const PullSpec& p);
// Records of a pull answer body (decoded).
std::vector<MessageExt> pulledMessages(const net::RemotingCommand& resp);
int64_t extInt(const net::RemotingCommand& resp, std::string_view key);  // -999 when absent

// Waits (bounded, 10 s) until the broker's consume queue topic/queueId holds `count` messages:
// sends are acknowledged once in the commit log, the consume queue follows asynchronously.
bool waitQueueMax(TestClient& c, const std::string& addr, const std::string& topic, int32_t queueId, int64_t count);

// HEART_BEAT for one consumer group subscribed to `topics` with "*" (plus producer groups).
net::RemotingCommand heartbeatRequest(const std::string& clientId, const std::string& consumerGroup,
                                      const std::vector<std::string>& topics,
                                      const std::vector<std::string>& producerGroups = {});

}  // namespace rmq::test
