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
#include "net/when_all.h"

namespace rmq::client {

struct TopicConfigSpec {
  std::string topicName;
  int32_t readQueueNums = 8;
  int32_t writeQueueNums = 8;
  int32_t perm = 6;
  bool order = false;
  std::string topicFilterType = "SINGLE_TAG";
  int32_t topicSysFlag = 0;
  std::string attributes;  // 5.x: "+message.type=FIFO" (UPDATE_AND_CREATE_TOPIC's attributes header); "" = none
};

struct TopicOffset {  // TopicStatsTable entry
  MessageQueue queue;
  int64_t minOffset = 0;
  int64_t maxOffset = 0;
  int64_t lastUpdateTimestamp = 0;
};

// A POP group's queue (rmqnode brokers add these to ConsumeStats' OffsetWrapper; 5.x names pullOffset).
struct PopQueueFigures {
  int64_t pullOffset = 0;    // the next offset never popped
  int64_t inFlight = 0;      // popped, not acked
  int64_t due = 0;           // invisible time over, waiting for a pop
  int64_t deadLettered = 0;  // moved to %DLQ%<group> since the broker started
};
struct ConsumeOffsetEntry {  // ConsumeStats entry
  MessageQueue queue;
  int64_t brokerOffset = 0;
  int64_t consumerOffset = 0;
  int64_t lastTimestamp = 0;
  std::optional<PopQueueFigures> pop;  // set when a POP consumer of the group used the queue
};
struct ConsumeStats {
  std::vector<ConsumeOffsetEntry> offsets;  // sorted by queue
  double consumeTps = 0;
  int64_t diffTotal() const;  // sum of queueLag (common/consumer_lag.h) over the queues
  // Sums of the queues' POP figures; nullopt when no queue has any (not a POP group).
  std::optional<PopQueueFigures> popTotal() const;
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

// A group's stats on one broker, as GET_BROKER_CONSUME_STATS lists them (one entry per topic).
struct GroupConsumeStats {
  std::string group;
  ConsumeStats stats;
};
struct BrokerConsumeStats {  // ConsumeStatsList
  std::string brokerAddr;
  std::vector<GroupConsumeStats> groups;
  int64_t totalDiff = 0;
};

// QUERY_CONSUME_QUEUE answer (QueryConsumeQueueResponseBody).
struct ConsumeQueueUnit {  // ConsumeQueueData
  int64_t physicOffset = 0;
  int32_t physicSize = 0;
  int64_t tagsCode = 0;
  std::string extendDataJson;  // "null" when absent, as Java prints it
  std::string bitMap;
  bool eval = false;
  std::string msg;
};
struct ConsumeQueueView {
  int64_t maxQueueIndex = 0;
  int64_t minQueueIndex = 0;
  std::vector<ConsumeQueueUnit> units;
  std::optional<std::string> subscriptionJson;  // the group's SubscriptionData (JSON) when -g was given
  std::optional<std::string> filterData;
};

// The answer of one node of a fan-out (name servers or brokers), in the order they were asked.
template <class T>
struct NodeAnswer {
  std::string addr;
  Result<T> result;
};

struct ConnectionInfo {
  std::string clientId;
  std::string clientAddr;
  std::string language;
  int32_t version = 0;
};
// GET_ALL_PRODUCER_INFO entry (Java's ProducerInfo): remoteIP as Netty prints it ("/ip:port").
struct ProducerInfo {
  std::string clientId;
  std::string remoteIP;
  std::string language;
  int32_t version = 0;
  int64_t lastUpdateTimestamp = 0;
};
using ProducerTable = std::map<std::string, std::vector<ProducerInfo>>;  // producer group -> instances

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
  // Runs admin operations side by side (net::whenAll) under one deadline (0: 4 x rpcTimeout, room
  // for an operation that makes a few calls in turn); answers in task order.
  template <class T>
  asio::awaitable<std::vector<Result<T>>> asyncAll(std::vector<asio::awaitable<Result<T>>> tasks,
                                                   std::chrono::milliseconds deadline = {}) {
    if (deadline.count() <= 0) deadline = instance_->config().rpcTimeout * 4;
    co_return co_await net::whenAll(std::move(tasks), deadline);
  }
  std::vector<std::string> nameServers() const { return instance_->nameServers(); }

  // ---- name server ----
  asio::awaitable<Result<ClusterInfo>> asyncClusterInfo();
  asio::awaitable<Result<std::vector<std::string>>> asyncTopicList();
  asio::awaitable<Result<TopicRouteData>> asyncTopicRoute(std::string topic);
  asio::awaitable<Result<void>> asyncPutKvConfig(std::string ns, std::string key, std::string value);
  asio::awaitable<Result<std::string>> asyncGetKvConfig(std::string ns, std::string key);
  asio::awaitable<Result<void>> asyncDeleteKvConfig(std::string ns, std::string key);
  asio::awaitable<Result<std::map<std::string, std::string>>> asyncKvList(std::string ns);

  // ---- name server administration (admin_client_namesrv.cpp), every name server at once ----
  // WIPE_WRITE_PERM_OF_BROKER (wipe) / ADD_WRITE_PERM_OF_BROKER: how many topics each name server changed.
  asio::awaitable<std::vector<NodeAnswer<int64_t>>> asyncChangeWritePerm(std::string brokerName, bool wipe);
  // GET_NAMESRV_CONFIG / UPDATE_NAMESRV_CONFIG on `addrs` (empty: every name server of the client).
  asio::awaitable<std::vector<NodeAnswer<std::map<std::string, std::string>>>> asyncNamesrvConfig(
      std::vector<std::string> addrs);
  asio::awaitable<std::vector<NodeAnswer<void>>> asyncUpdateNamesrvConfig(std::map<std::string, std::string> kv,
                                                                          std::vector<std::string> addrs);

  // ---- topics ----
  // On every master of `cluster` (or only on brokerAddr when given); order topics also get their
  // ORDER_TOPIC_CONFIG KV entry ("brokerName:writeQueueNums;...").
  asio::awaitable<Result<std::vector<std::string>>> asyncCreateTopic(TopicConfigSpec spec, std::string cluster,
                                                                    std::string brokerAddr = {});
  asio::awaitable<Result<void>> asyncCreateTopicOnBroker(std::string brokerAddr, TopicConfigSpec spec);
  asio::awaitable<Result<void>> asyncDeleteTopic(std::string topic, std::string cluster);
  asio::awaitable<Result<std::vector<TopicOffset>>> asyncTopicStats(std::string topic);
  // Clusters of the brokers serving `topic` (DefaultMQAdminExt.getTopicClusterList), sorted.
  asio::awaitable<Result<std::vector<std::string>>> asyncTopicClusters(std::string topic);

  // ---- brokers ----
  asio::awaitable<Result<std::map<std::string, std::string>>> asyncBrokerRuntimeInfo(std::string brokerAddr);
  // rmqnode failover (RMQNODE_FAILOVER_STATUS): the broker's view of its group as JSON text.
  asio::awaitable<Result<std::string>> asyncFailoverStatus(std::string brokerAddr);
  // rmqnode failover (RMQNODE_FAILOVER_SWITCH): the master hands mastership to `targetId` once it
  // caught up (waiting up to `timeout`); the master's remark.
  asio::awaitable<Result<std::string>> asyncFailoverSwitch(std::string masterAddr, int64_t targetId,
                                                           std::chrono::milliseconds timeout);
  asio::awaitable<Result<std::map<std::string, std::string>>> asyncBrokerConfig(std::string brokerAddr);
  // VIEW_BROKER_STATS_DATA: one BrokerStatsManager item of one broker (e.g. TOPIC_PUT_NUMS, topic).
  asio::awaitable<Result<BrokerStatsData>> asyncViewBrokerStatsData(std::string brokerAddr, std::string statsName,
                                                                    std::string statsKey);
  asio::awaitable<Result<void>> asyncUpdateBrokerConfig(std::string brokerAddr, std::map<std::string, std::string> kv);
  // Master addresses of a cluster (all clusters when empty).
  asio::awaitable<Result<std::vector<std::string>>> asyncMasterAddrs(std::string cluster);
  // Every node (masters and slaves) of a cluster, all clusters when empty (ClusterInfo.retrieveAllAddrByCluster).
  asio::awaitable<Result<std::vector<std::string>>> asyncBrokerAddrs(std::string cluster);

  // ---- broker maintenance and views (admin_client_broker.cpp) ----
  asio::awaitable<Result<BrokerConsumeStats>> asyncBrokerConsumeStats(std::string brokerAddr, bool isOrder,
                                                                      std::chrono::milliseconds timeout);
  asio::awaitable<Result<ConsumeQueueView>> asyncQueryConsumeQueue(std::string brokerAddr, std::string topic,
                                                                   int32_t queueId, int64_t index, int32_t count,
                                                                   std::string group);
  asio::awaitable<Result<void>> asyncCleanExpiredConsumeQueue(std::string brokerAddr);
  asio::awaitable<Result<void>> asyncCleanUnusedTopic(std::string brokerAddr);
  asio::awaitable<Result<void>> asyncDeleteExpiredCommitLog(std::string brokerAddr);
  // GET_ALL_SUBSCRIPTIONGROUP_CONFIG: every group the broker keeps, by name.
  asio::awaitable<Result<std::vector<SubscriptionGroupConfig>>> asyncSubscriptionGroups(std::string brokerAddr);
  // The same less RocketMQ's system groups (DefaultMQAdminExt.getUserSubscriptionGroup).
  asio::awaitable<Result<std::vector<SubscriptionGroupConfig>>> asyncUserSubscriptionGroups(std::string brokerAddr);
  // GET_ALL_TOPIC_CONFIG less the broker's system topics (GET_SYSTEM_TOPIC_LIST_FROM_BROKER) and,
  // unless withRetryDlq, %RETRY% / %DLQ% topics (DefaultMQAdminExt.getUserTopicConfig); by name.
  asio::awaitable<Result<std::vector<TopicConfigSpec>>> asyncUserTopicConfigs(std::string brokerAddr, bool withRetryDlq);
  // The group's config on one broker (GET_ALL_SUBSCRIPTIONGROUP_CONFIG, as examineSubscriptionGroupConfig);
  // nullopt when that broker does not know the group.
  asio::awaitable<Result<std::optional<SubscriptionGroupConfig>>> asyncSubscriptionGroupConfig(std::string brokerAddr,
                                                                                                std::string group);

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
  // mqadmin cloneGroupOffset: the committed offsets of srcGroup on `topic`'s queues written as
  // destGroup's (UPDATE_CONSUMER_OFFSET, every queue at once); returns the offsets copied.
  asio::awaitable<Result<std::map<MessageQueue, int64_t>>> asyncCloneGroupOffset(std::string srcGroup,
                                                                                 std::string destGroup,
                                                                                 std::string topic);
  // GET_PRODUCER_CONNECTION_LIST on each broker of `topic`'s route, merged (one entry per client id).
  // Brokers that do not know the group (or do not answer) are left out; an error only when none knows it.
  asio::awaitable<Result<std::vector<ConnectionInfo>>> asyncProducerConnection(std::string group, std::string topic);
  // GET_ALL_PRODUCER_INFO: every producer group one broker knows, with its instances (ProducerTableInfo).
  asio::awaitable<Result<ProducerTable>> asyncAllProducerInfo(std::string brokerAddr);
  asio::awaitable<Result<std::vector<std::string>>> asyncConsumerIds(std::string group, std::string topic);
  // Groups that consume `topic` (QUERY_TOPIC_CONSUME_BY_WHO on each master of its route), sorted.
  asio::awaitable<Result<std::vector<std::string>>> asyncTopicConsumeByWho(std::string topic);
  // INVOKE_BROKER_TO_RESET_OFFSET on every broker of `topic` (online consumers are told by the
  // broker); with no consumer online the offsets are set directly, as mqadmin does. Returns them.
  // timestampMs kSkipToMaxOffset (-1) moves to each queue's max offset (skipAccumulatedMessage).
  static constexpr int64_t kSkipToMaxOffset = -1;
  asio::awaitable<Result<std::map<MessageQueue, int64_t>>> asyncResetOffsetByTime(std::string group, std::string topic,
                                                                                  int64_t timestampMs, bool force = true);

  // ---- messages ----
  asio::awaitable<Result<MessageExt>> asyncViewMessage(std::string offsetMsgId);
  // RESUME_CHECK_HALF_MESSAGE to the broker the offset message id names (DefaultMQAdminExtImpl
  // .resumeCheckHalfMessage(msgId)): that message is checked again from a check count of 0.
  asio::awaitable<Result<void>> asyncResumeCheckHalfMessage(std::string offsetMsgId);
  asio::awaitable<Result<std::vector<MessageExt>>> asyncQueryMessageByKey(std::string topic, std::string key,
                                                                          int maxNum, int64_t beginMs, int64_t endMs,
                                                                          bool uniqKey = false);
  asio::awaitable<Result<MessageExt>> asyncQueryMessageByOffset(MessageQueue mq, int64_t offset);
  asio::awaitable<Result<int64_t>> asyncMaxOffset(MessageQueue mq);
  asio::awaitable<Result<int64_t>> asyncMinOffset(MessageQueue mq);

  // ---- one consumer (admin_client_direct.cpp) ----
  // GET_CONSUMER_RUNNING_INFO through a broker of %RETRY%<group>: the ConsumerRunningInfo JSON text
  // (jstack: jstackEnable, with the consumer's thread stack trace).
  asio::awaitable<Result<std::string>> asyncConsumerRunningInfo(std::string group, std::string clientId,
                                                                bool jstack = false);
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
  // callEach over `addrs`, answers paired with their address.
  asio::awaitable<std::vector<NodeAnswer<net::RemotingCommand>>> askEach(std::vector<std::string> addrs,
                                                                         net::RemotingCommand cmd);
  // A request with no header fields whose answer must be SUCCESS.
  asio::awaitable<Result<void>> callCode(std::string addr, int requestCode);
  std::shared_ptr<ClientInstance> instance_;
  PullFromWhichNode pullNodes_;  // queryMessageByOffset follows suggestWhichBrokerId like a pull consumer
};

// Parses one ConsumeStats JSON object ({"consumeTps":..,"offsetTable":{..}}) into `out` (entries
// appended, TPS added); queues of other topics are left out when `topic` is not empty.
void appendConsumeStats(const rapidjson::Value& doc, const std::string& topic, ConsumeStats& out);

// Java properties text ("k=v" lines, '#' comments) <-> map; used by broker config get/update.
std::map<std::string, std::string> parsePropertiesText(std::string_view text);
std::string toPropertiesText(const std::map<std::string, std::string>& kv);

}  // namespace rmq::client
