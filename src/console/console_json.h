#pragma once
// The JSON shapes of the console's /api endpoints, as pure functions of what the admin client
// returned (no I/O here, so each shape is unit-tested). Field names follow rocketmq-dashboard's
// where it has one (brokerName, brokerId, putTps, diff, ...); times are epoch milliseconds.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client/admin/admin_client.h"
#include "client/route.h"
#include "client/types.h"
#include "common/message.h"

namespace rmq::console {

// One broker node as the overview shows it: where it is and, when it answered, its runtime info
// (GET_BROKER_RUNTIME_INFO key/values), else why it did not.
struct BrokerView {
  std::string cluster;
  std::string brokerName;
  int64_t brokerId = 0;
  std::string addr;
  std::optional<std::map<std::string, std::string>> runtime;
  std::string error;
};

// Every broker node of the cluster info, clusters and brokers sorted by name, nodes by id.
std::vector<BrokerView> brokerViews(const client::ClusterInfo& info);

// {"clusters":[{"name":..,"brokers":[{brokerName, brokerId, addr, role, version, putTps, getTps,
//   diskRatio, msgPutTotalToday, msgGetTotalToday, commitLogMaxOffset, bootTimestamp, timerPending,
//   timerDelivered, timerLagP99Ms[, error]}]}]}
std::string clusterJson(const std::vector<BrokerView>& brokers);
// {"addr":..,"runtime":{k:v,...}} / {"addr":..,"config":{k:v,...}}
std::string keyValuesJson(std::string_view addr, std::string_view member, const std::map<std::string, std::string>& kv);

// A topic's kind as the dashboard filters them: "retry" (%RETRY%), "dlq" (%DLQ%), "system"
// (the broker's own: TBW102, SCHEDULE_TOPIC_XXXX, RMQ_SYS_*, cluster and broker names ...), else "normal".
std::string topicKind(std::string_view topic, const client::ClusterInfo& info);
// {"topics":[{"name":..,"kind":..}]}, sorted by name.
std::string topicListJson(const std::vector<std::string>& topics, const client::ClusterInfo& info);

// Queue totals of a topic: sum of maxOffset - minOffset (messages held) and of maxOffset (ever written).
struct TopicTotals {
  int64_t messages = 0;
  int64_t maxOffsetSum = 0;
};
TopicTotals topicTotals(const std::vector<client::TopicOffset>& stats);
// {"topic":..,"route":{"queueDatas":[..],"brokerDatas":[..],"orderTopicConf":..},
//  "queues":[{brokerName, queueId, minOffset, maxOffset, lastUpdateTimestamp}], "messages", "maxOffsetSum",
//  "tps" (null until a second sample), "consumerGroups":[..]}
std::string topicDetailJson(std::string_view topic, const client::TopicRouteData& route,
                            const std::vector<client::TopicOffset>& stats, std::optional<double> tps,
                            const std::vector<std::string>& groups);

// Consumer groups are the names behind %RETRY% topics (what `rmqadmin consumerProgress` lists).
std::vector<std::string> groupsOfTopics(const std::vector<std::string>& topics);
struct GroupSummary {
  std::string group;
  std::optional<client::ConsumeStats> stats;
  size_t members = 0;
  std::string error;
};
// {"groups":[{"group","members","consumeTps","diff"[,"pop"][,"error"]}]}; "pop" (a POP group, 5.x
// consumers): {pullOffset, inFlight, due, deadLettered} summed over its queues.
std::string groupListJson(const std::vector<GroupSummary>& groups);
// {"group":..,"online":bool,"consumeType","messageModel","consumeFromWhere",
//  "members":[{clientId, clientAddr, language, version}], "subscriptions":[{topic, expression, type}],
//  "consumeTps","diff"[,"pop"],"queues":[{topic, brokerName, queueId, brokerOffset, consumerOffset, lag,
//  lastTimestamp[, pop]}]}; "pop" as in the list, per queue and summed
std::string groupDetailJson(std::string_view group, const std::optional<client::ConsumerConnectionInfo>& connection,
                            const std::optional<client::ConsumeStats>& stats);
// {"group","topic","online":bool,"connections":[{clientId, clientAddr, language, version}]}: the
// producers of `group` connected to the brokers of `topic` (rocketmq-dashboard's producer view).
std::string producerListJson(std::string_view group, std::string_view topic,
                             const std::vector<client::ConnectionInfo>& connections);
// {"group","topic","timestamp","queues":[{topic, brokerName, queueId, offset}]}
std::string resetOffsetJson(std::string_view group, std::string_view topic, int64_t timestamp,
                            const std::map<client::MessageQueue, int64_t>& offsets);

// Body shown as text when it is valid UTF-8 without control characters other than tab/newline.
bool isPrintableUtf8(std::string_view body);
std::string hexOf(std::string_view bytes);
// A message: msgId (UNIQ_KEY, else the offset id), offsetMsgId, topic, brokerName (when known),
// queueId, queueOffset, tags, keys, bornTimestamp, bornHost, storeTimestamp, storeHost,
// commitLogOffset, reconsumeTimes, sysFlag, bodySize, bodyText (null when binary), bodyHex,
// properties {k:v}. Bodies above `bodyLimit` bytes are cut (bodyTruncated=true).
std::string messageJson(const MessageExt& m, std::string_view brokerName = {}, size_t bodyLimit = 64 * 1024);
// {"messages":[message...]}
std::string messageListJson(const std::vector<MessageExt>& messages, size_t bodyLimit = 64 * 1024);
// {"status":"SEND_OK","msgId","offsetMsgId","brokerName","queueId","queueOffset"}
std::string sendResultJson(const client::SendResult& r);
// {"error": message, "code": RocketMQ response code}
std::string errorJson(std::string_view message, int code);

// Messages per second between two samples of a monotonic count (nullopt when time did not move
// or the count went back, e.g. a broker restarted with a smaller store).
std::optional<double> ratePerSecond(int64_t prevCount, int64_t prevMs, int64_t count, int64_t nowMs);

}  // namespace rmq::console
