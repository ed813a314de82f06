#pragma once
// AdminClient: what mqadmin's verbs need, over the name servers and brokers (PROTOCOL.md §2.2
// "Commonly used mqadmin calls", §3.7). Each operation is a coroutine (async*); simple programs
// wrap any of them with run(): `admin.run(admin.asyncTopicList())`. An operation that asks several
// brokers (or name servers) asks them at once (net::whenAll), each call bounded by rpcTimeout, so a
// node that does not answer costs one timeout, not one per node.
// Threads: coroutines run on the ClientInstance io thread; run() blocks the caller (never call it
// on that thread). Lifecycle: construct -> start() -> ... -> shutdown().
#include <asio/awaitable.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/pull_api.h"
#include "client/heartbeat.h"
#include "client/route.h"
#include "client/types.h"
#include "common/message.h"
#include "common/result.h"
#include "common/subscription_group.h"

namespace rmq::client {

struct TopicConfigSpec {
  std::string topicName;
  int32_t readQueueNums = 8;
  int32_t writeQueueNums = 8;
  int32_t perm = 6;
  bool order = false;
  std::string topicFilterType = "SINGLE_TAG";
  int32_t topicSysFlag = 0;
};

struct TopicOffset {  // TopicStatsTable entry
  MessageQueue queue;
  int64_t minOffset = 0;
  int64_t maxOffset = 0;
  int64_t lastUpdateTimestamp = 0;
};

struct ConsumeOffsetEntry {  // ConsumeStats entry
  MessageQueue queue;
  int64_t brokerOffset = 0;
  int64_t consumerOffset = 0;
  int64_t lastTimestamp = 0;
};
struct ConsumeStats {
  std::vector<ConsumeOffsetEntry> offsets;  // sorted by queue
  double consumeTps = 0;
  int64_t diffTotal() const;  // sum of queueLag (common/consumer_lag.h) over the queues
};

// VIEW_BROKER_STATS_DATA answer (Java's BrokerStatsData / BrokerStatsItem).
struct BrokerStatsItem {
  int64_t sum = 0;
  double tps = 0;
  double avgpt = 0;
};
struct BrokerStatsData {
  BrokerStatsItem statsMinute, statsHour, statsDay;
  // mqadmin statsAll's compute24HourSum: the day sum, else the hour's, else the minute's.
  int64_t sum24Hours() const;
};

struct ConnectionInfo {
  std::string clientId;
  std::string clientAddr;
  std::string language;
  int32_t version = 0;
};
struct ConsumerConnectionInfo {
  std::vector<ConnectionInfo> connections;
  std::vector<SubscriptionData> subscriptions;
  std::string consumeType;
  std::string messageModel;
  std::string consumeFromWhere;
};

class AdminClient {
 public:
  explicit AdminClient(ClientConfig config);
  ~AdminClient();
  Result<void> start();
  void shutdown();
  ClientInstance& instance() { return *instance_; }
  template <class T>
  T run(asio::awaitable<T> task) { return instance_->runSync(std::move(task)); }

  // ---- name server ----
  asio::awaitable<Result<ClusterInfo>> asyncClusterInfo();
  asio::awaitable<Result<std::vector<std::string>>> asyncTopicList();
  asio::awaitable<Result<TopicRouteData>> asyncTopicRoute(std::string topic);
  asio::awaitable<Result<void>> asyncPutKvConfig(std::string ns, std::string key, std::string value);
  asio::awaitable<Result<std::string>> asyncGetKvConfig(std::string ns, std::string key);
  asio::awaitable<Result<void>> asyncDeleteKvConfig(std::string ns, std::string key);
  asio::awaitable<Result<std::map<std::string, std::string>>> asyncKvList(std::string ns);

  // ---- topics ----
  // On every master of `cluster` (or only on brokerAddr when given); order topics also get their
  // ORDER_TOPIC_CONFIG KV entry ("brokerName:writeQueueNums;...").
  asio::awaitable<Result<std::vector<std::string>>> asyncCreateTopic(TopicConfigSpec spec, std::string cluster,
                                                                    std::string brokerAddr = {});
  asio::awaitable<Result<void>> asyncCreateTopicOnBroker(std::string brokerAddr, TopicConfigSpec spec);
  asio::awaitable<Result<void>> asyncDeleteTopic(std::string topic, std::string cluster);
  asio::awaitable<Result<std::vector<TopicOffset>>> asyncTopicStats(std::string topic);

  // ---- brokers ----
  asio::awaitable<Result<std::map<std::string, std::string>>> asyncBrokerRuntimeInfo(std::string brokerAddr);
  asio::awaitable<Result<std::map<std::string, std::string>>> asyncBrokerConfig(std::string brokerAddr);
  // VIEW_BROKER_STATS_DATA: one BrokerStatsManager item of one broker (e.g. TOPIC_PUT_NUMS, topic).
  asio::awaitable<Result<BrokerStatsData>> asyncViewBrokerStatsData(std::string brokerAddr, std::string statsName,
                                                                    std::string statsKey);
  asio::awaitable<Result<void>> asyncUpdateBrokerConfig(std::string brokerAddr, std::map<std::string, std::string> kv);
  // Master addresses of a cluster (all clusters when empty).
  asio::awaitable<Result<std::vector<std::string>>> asyncMasterAddrs(std::string cluster);

  // ---- ACL (codes 50-54, admin_client_acl.cpp) ----
  // UPDATE_AND_CREATE_ACL_CONFIG: fields as mqadmin's updateAclConfig sends them (absent = not sent).
  asio::awaitable<Result<void>> asyncUpdateAclConfig(std::string brokerAddr, std::map<std::string, std::string> fields);
  asio::awaitable<Result<void>> asyncDeleteAclConfig(std::string brokerAddr, std::string accessKey);
  // GET_BROKER_CLUSTER_ACL_INFO: the response header (version, allAclFileVersion, brokerName, ...).
  asio::awaitable<Result<std::map<std::string, std::string>>> asyncAclConfigVersion(std::string brokerAddr);
  asio::awaitable<Result<void>> asyncUpdateGlobalWhiteAddrs(std::string brokerAddr, std::string addrs,
                                                            std::string aclFile);
  // GET_BROKER_CLUSTER_ACL_CONFIG: the JSON body ({"globalWhiteAddrs":[...],"plainAccessConfigs":[...]}).
  asio::awaitable<Result<std::string>> asyncGetAclConfig(std::string brokerAddr);

  // ---- groups and consumers ----
  asio::awaitable<Result<void>> asyncUpdateSubscriptionGroup(std::string brokerAddr, SubscriptionGroupConfig config);
  asio::awaitable<Result<void>> asyncDeleteSubscriptionGroup(std::string brokerAddr, std::string group, bool removeOffset);
  // Over the brokers of %RETRY%<group> (and of `topic` when given); filtered to `topic` if set.
  asio::awaitable<Result<ConsumeStats>> asyncConsumeStats(std::string group, std::string topic = {});
  asio::awaitable<Result<ConsumerConnectionInfo>> asyncConsumerConnection(std::string group);
  // GET_PRODUCER_CONNECTION_LIST on each broker of `topic`'s route, merged (one entry per client id).
  // Brokers that do not know the group (or do not answer) are left out; an error only when none knows it.
  asio::awaitable<Result<std::vector<ConnectionInfo>>> asyncProducerConnection(std::string group, std::string topic);
  asio::awaitable<Result<std::vector<std::string>>> asyncConsumerIds(std::string group, std::string topic);
  // Groups that consume `topic` (QUERY_TOPIC_CONSUME_BY_WHO on each master of its route), sorted.
  asio::awaitable<Result<std::vector<std::string>>> asyncTopicConsumeByWho(std::string topic);
  // INVOKE_BROKER_TO_RESET_OFFSET on every broker of `topic` (online consumers are told by the
  // broker); with no consumer online the offsets are set directly, as mqadmin does. Returns them.
  asio::awaitable<Result<std::map<MessageQueue, int64_t>>> asyncResetOffsetByTime(std::string group, std::string topic,
                                                                                  int64_t timestampMs, bool force = true);

  // ---- messages ----
  asio::awaitable<Result<MessageExt>> asyncViewMessage(std::string offsetMsgId);
  asio::awaitable<Result<std::vector<MessageExt>>> asyncQueryMessageByKey(std::string topic, std::string key,
                                                                          int maxNum, int64_t beginMs, int64_t endMs,
                                                                          bool uniqKey = false);
  asio::awaitable<Result<MessageExt>> asyncQueryMessageByOffset(MessageQueue mq, int64_t offset);
  asio::awaitable<Result<int64_t>> asyncMaxOffset(MessageQueue mq);
  asio::awaitable<Result<int64_t>> asyncMinOffset(MessageQueue mq);

  // ---- one consumer (admin_client_direct.cpp) ----
  // GET_CONSUMER_RUNNING_INFO through a broker of %RETRY%<group>: the ConsumerRunningInfo JSON text.
  asio::awaitable<Result<std::string>> asyncConsumerRunningInfo(std::string group, std::string clientId);
  // CONSUME_MESSAGE_DIRECTLY: the message (offset msgId, or UNIQ_KEY of `topic`) is pushed by the
  // broker that stores it to consumer `clientId` of `group`; the ConsumeMessageDirectlyResult JSON text.
  asio::awaitable<Result<std::string>> asyncConsumeMessageDirectly(std::string group, std::string clientId,
                                                                   std::string topic, std::string msgId);

 private:
  // A call whose answer must be SUCCESS (else its code and remark as the error); `timeout` 0 = rpcTimeout.
  asio::awaitable<Result<net::RemotingCommand>> callOk(std::string addr, net::RemotingCommand cmd,
                                                       std::chrono::milliseconds timeout = {});
  // callOk of the same request to every address at once (net::whenAll); answers in address order.
  asio::awaitable<std::vector<Result<net::RemotingCommand>>> callEach(std::vector<std::string> addrs,
                                                                      net::RemotingCommand cmd,
                                                                      std::chrono::milliseconds timeout = {});
  // asyncResetOffsetByTime on one broker of the route.
  asio::awaitable<Result<std::map<MessageQueue, int64_t>>> resetOffsetOnBroker(std::string group, std::string topic,
                                                                               int64_t timestampMs, bool force,
                                                                               TopicRouteData route, BrokerData broker);
  asio::awaitable<Result<net::RemotingCommand>> namesrvOk(net::RemotingCommand cmd);
  std::shared_ptr<ClientInstance> instance_;
  PullFromWhichNode pullNodes_;  // queryMessageByOffset follows suggestWhichBrokerId like a pull consumer
};

// Java properties text ("k=v" lines, '#' comments) <-> map; used by broker config get/update.
std::map<std::string, std::string> parsePropertiesText(std::string_view text);
std::string toPropertiesText(const std::map<std::string, std::string>& kv);

}  // namespace rmq::client
