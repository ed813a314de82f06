#include "broker_requests.h"

#include "client/heartbeat.h"
#include "client/request_headers.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "test_client.h"

namespace rmq::test {

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
  auto msgs = decodeMessages(bodyOf(resp));
  return msgs.ok() ? std::move(*msgs) : std::vector<MessageExt>{};
}

int64_t extInt(const net::RemotingCommand& resp, std::string_view key) {
  return resp.extFields.getInt(key).value_or(-999);
}

net::RemotingCommand heartbeatRequest(const std::string& clientId, const std::string& consumerGroup,
                                      const std::vector<std::string>& topics,
                                      const std::vector<std::string>& producerGroups, bool broadcasting) {
  std::vector<client::ConsumerData> consumers;
  if (!consumerGroup.empty()) {
    client::ConsumerData c;
    c.groupName = consumerGroup;
    if (broadcasting) c.messageModel = client::MessageModel::BROADCASTING;
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

net::RemotingCommand createTopicRequest(const std::string& topic, int queues, int perm) {
  return request(RequestCode::UPDATE_AND_CREATE_TOPIC,
                 {{"topic", topic}, {"defaultTopic", "TBW102"}, {"readQueueNums", std::to_string(queues)},
                  {"writeQueueNums", std::to_string(queues)}, {"perm", std::to_string(perm)},
                  {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "0"}, {"order", "false"}});
}

}  // namespace rmq::test
