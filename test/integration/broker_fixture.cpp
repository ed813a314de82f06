#include "broker_fixture.h"

#include <cstdio>

#include "client/heartbeat.h"
#include "client/request_headers.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "namesrv_client.h"

namespace rmq::test {

BrokerNode::BrokerNode(std::string extraBroker, std::string extraStore) {
  nsPort = freePort();
  brokerPort = freePort();
  std::string toml = "logDir = \"" + proc.path("logs") + "\"\n" +
                     "[namesrv]\n"
                     "bindAddress = \"127.0.0.1\"\n"
                     "listenPort = " + std::to_string(nsPort) + "\n" +
                     "kvConfigPath = \"" + proc.path("namesrv/kvConfig.json") + "\"\n" +
                     "configStorePath = \"" + proc.path("namesrv/namesrv.properties") + "\"\n" +
                     "[broker]\n"
                     "brokerIP1 = \"127.0.0.1\"\n"
                     "brokerName = \"broker-a\"\n"
                     "listenPort = " + std::to_string(brokerPort) + "\n" + extraBroker + "\n" +
                     "[store]\n"
                     "storePathRootDir = \"" + proc.path("store") + "\"\n" +
                     "mappedFileSizeCommitLog = 67108864\n" + extraStore + "\n";
  proc.writeFile("node.toml", toml);
  proc.setArgs({"--role=namesrv,master", "-c", proc.path("node.toml")});
  proc.waitForPorts({nsPort, brokerPort});
}

bool BrokerNode::start() {
  if (proc.start(std::chrono::seconds(20))) return true;
  std::fprintf(stderr, "rmqnode did not start:\n%s\n%s\n", proc.stdoutText().c_str(), proc.stderrText().c_str());
  return false;
}

TestClient::TestClient() : pool_(std::make_unique<net::IoPool>(1)) {
  pool_->start();
  client_ = std::make_unique<net::RemotingClient>(*pool_);
}

TestClient::~TestClient() {
  client_->shutdown();
  pool_->stop();
}

Result<net::RemotingCommand> TestClient::call(const std::string& addr, net::RemotingCommand req,
                                              std::chrono::milliseconds timeout) {
  return client_->invokeSync(addr, std::move(req), timeout);
}

net::RemotingCommand sendRequest(const SendSpec& s) {
  client::SendMessageHeader h;
  h.producerGroup = "pg";
  h.topic = s.topic;
  h.defaultTopic = s.defaultTopic;
  h.queueId = s.queueId;
  h.bornTimestamp = s.bornTimestamp;
  h.reconsumeTimes = s.reconsumeTimes;
  h.maxReconsumeTimes = s.maxReconsumeTimes;
  Properties props;
  if (!s.tags.empty()) props.emplace_back("TAGS", s.tags);
  if (!s.keys.empty()) props.emplace_back("KEYS", s.keys);
  props.emplace_back("WAIT", "true");
  for (auto& kv : s.extraProps) props.push_back(kv);
  h.properties = encodeProperties(props);
  if (s.code == RequestCode::SEND_MESSAGE) {
    auto cmd = net::RemotingCommand::request(RequestCode::SEND_MESSAGE);
    client::encodeSendHeaderV1(h, cmd.extFields);
    cmd.body = s.body;
    return cmd;
  }
  return client::makeSendRequest(h, s.body);
}

net::RemotingCommand batchRequest(const std::string& topic, int32_t queueId, const std::vector<Message>& msgs) {
  client::SendMessageHeader h;
  h.producerGroup = "pg";
  h.topic = topic;
  h.queueId = queueId;
  h.bornTimestamp = 1700000000000;
  h.batch = true;
  return client::makeSendRequest(h, encodeBatch(msgs));
}

net::RemotingCommand pullRequest(const PullSpec& p) {
  client::PullMessageHeader h;
  h.consumerGroup = p.group;
  h.topic = p.topic;
  h.queueId = p.queueId;
  h.queueOffset = p.offset;
  h.maxMsgNums = p.maxMsgNums;
  h.sysFlag = p.sysFlag;
  h.commitOffset = p.commitOffset;
  h.suspendTimeoutMillis = p.suspendMillis;
  h.subscription = p.subscription;
  h.expressionType = p.expressionType;
  return client::makePullRequest(h);
}

std::vector<MessageExt> pulledMessages(const net::RemotingCommand& resp) {
  std::string bytes = resp.body;
  for (auto& seg : resp.bodySegments) bytes.append(seg.data, seg.size);
  auto msgs = decodeMessages(bytes);
  return msgs.ok() ? std::move(*msgs) : std::vector<MessageExt>{};
}

int64_t extInt(const net::RemotingCommand& resp, std::string_view key) {
  return resp.extFields.getInt(key).value_or(-999);
}

bool waitQueueMax(TestClient& c, const std::string& addr, const std::string& topic, int32_t queueId, int64_t count) {
  return eventually(
      [&] {
        auto r = c.call(addr, client::makeQueueOffsetRequest(RequestCode::GET_MAX_OFFSET, topic, queueId));
        return r.ok() && extInt(*r, "offset") >= count;
      },
      std::chrono::seconds(10));
}

net::RemotingCommand heartbeatRequest(const std::string& clientId, const std::string& consumerGroup,
                                      const std::vector<std::string>& topics,
                                      const std::vector<std::string>& producerGroups) {
  std::vector<client::ConsumerData> consumers;
  if (!consumerGroup.empty()) {
    client::ConsumerData c;
    c.groupName = consumerGroup;
    for (auto& t : topics) {
      client::SubscriptionData s;
      s.topic = t;
      s.subVersion = 1;
      c.subscriptions.push_back(s);
    }
    consumers.push_back(c);
  }
  auto cmd = net::RemotingCommand::request(RequestCode::HEART_BEAT);
  cmd.body = client::encodeHeartbeat(clientId, producerGroups, consumers);
  return cmd;
}

}  // namespace rmq::test
