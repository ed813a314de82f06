#include "roles/broker/broker_config.h"
#include "common/local_address.h"
#include "common/text_split.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>

#include <fmt/format.h>

namespace rmq::broker {

void BrokerConfig::visit(config::FieldVisitor& v) {
  v.field({"brokerClusterName", "Cluster this broker belongs to"}, brokerClusterName);
  v.field({"brokerName", "Broker name shared by a master and its slaves (default: host name)"}, brokerName);
  v.field({"brokerId", "0 for a master, > 0 for slaves", 0, 1024}, brokerId);
  v.field({"brokerIP1", "Address advertised to clients and stored as store host (default: local IPv4)"},
          brokerIP1);
  v.field({"brokerIP2", "Address advertised for HA replication (default: brokerIP1)"}, brokerIP2);
  v.field({"listenPort", "Remoting port; the VIP channel listens on listenPort-2", 3, 65535}, listenPort);
  v.field({"namesrvAddr", "Name servers, 'host:port;host:port' (default: $NAMESRV_ADDR)"}, namesrvAddr);
  v.field({"fetchNamesrvAddrByAddressServer",
           "Without namesrvAddr: take the name servers from the address server every 2 minutes"},
          fetchNamesrvAddrByAddressServer);
  v.field({"rmqAddressServerDomain", "Address server host[:port] (port 8080 when not given)"}, rmqAddressServerDomain);
  v.field({"rmqAddressServerSubGroup", "Address server path: /rocketmq/<subgroup>"}, rmqAddressServerSubGroup);
  v.field({"regionId", "MSG_REGION returned in send responses"}, regionId);
  v.field({"traceOn", "TRACE_ON returned in send responses"}, traceOn);
  v.field({"brokerPermission", "Broker permission bits (PermName: 2 write, 4 read)", 0, 7}, brokerPermission);
  v.field({"autoCreateTopicEnable", "Create unknown topics on send from TBW102"}, autoCreateTopicEnable);
  v.field({"defaultTopicQueueNums", "Queues of auto-created topics", 1, 1024}, defaultTopicQueueNums);
  v.field({"clusterTopicEnable", "Cluster-name topic is writeable"}, clusterTopicEnable);
  v.field({"brokerTopicEnable", "Broker-name topic is writeable"}, brokerTopicEnable);
  v.field({"traceTopicEnable", "Create the message trace topic"}, traceTopicEnable);
  v.field({"msgTraceTopicName", "Message trace topic name"}, msgTraceTopicName);
  v.field({"autoCreateSubscriptionGroup", "Create unknown consumer groups on first use"},
          autoCreateSubscriptionGroup);
  v.field({"longPollingEnable", "Park pulls on empty queues until a message arrives"}, longPollingEnable);
  v.field({"shortPollingTimeMills", "Park time of a pull when long polling is off", 0, 3600000},
          shortPollingTimeMills);
  v.field({"brokerSuspendMaxTimeMillis", "Upper bound of a pull's suspendTimeoutMillis", 0, 3600000},
          brokerSuspendMaxTimeMillis);
  v.field({"slaveReadEnable", "Suggest pulling from a slave when the consumer reads slowly"}, slaveReadEnable);
  v.field({"transferMsgByHeap", "Java: copy pull bodies through the heap (accepted, unused)"},
          transferMsgByHeap);
  v.field({"enablePropertyFilter", "Allow SQL92 subscriptions"}, enablePropertyFilter);
  v.field({"filterSupportRetry", "Apply SQL92 filters to retry topics"}, filterSupportRetry);
  v.field({"notifyConsumerIdsChangedEnable", "Push NOTIFY_CONSUMER_IDS_CHANGED on group changes"},
          notifyConsumerIdsChangedEnable);
  connection.visit(v);
  v.field({"channelExpiredTimeout", "Drop clients silent for this long (ms)", 1000, 86400000},
          channelExpiredTimeout);
  v.field({"clientRuntimeInfoInterval",
           "Ask online consumers for their running info (GET /metrics rocketmq_client_*) every N ms; 0 = never",
           0, 3600000},
          clientRuntimeInfoInterval);
  v.field({"flushConsumerOffsetInterval", "Persist consumerOffset.json every N ms", 100, 3600000},
          flushConsumerOffsetInterval);
  v.field({"flushConsumerOffsetHistoryInterval", "Java: offset history persistence (accepted, unused)"},
          flushConsumerOffsetHistoryInterval);
  v.field({"compressedRegister",
           "REGISTER_BROKER bodies in Java's compressed form (zlib; ~20x smaller: needed past ~85,000 topics, "
           "where the JSON body passes the 16 MiB frame limit)"},
          compressedRegister);
  v.field({"forceRegister",
           "Periodic registrations always sent; false = ask QUERY_DATA_VERSION first and skip them while every "
           "name server holds this broker's data version"},
          forceRegister);
  v.field({.name = "registerNameServerPeriod", .description = "Re-register with name servers every N ms",
           .min = 10000, .max = 60000, .clamp = true},
          registerNameServerPeriod);
  // Java takes any value; one under 1 ms could never succeed, so it becomes 1 (with a warning).
  v.field({.name = "registerBrokerTimeoutMills", .description = "Timeout of a REGISTER_BROKER call (ms)", .min = 1,
           .clamp = true},
          registerBrokerTimeoutMills);
  v.field({"brokerFastFailureEnable",
           "Answer SYSTEM_BUSY to requests that waited longer than waitTimeMillsIn*Queue, and to sends "
           "waiting for a commit-log lock held past osPageCacheBusyTimeOutMills"},
          brokerFastFailureEnable);
  v.field({"waitTimeMillsInSendQueue", "ms a send may wait (frame read -> start, commit-log lock) before SYSTEM_BUSY",
           0, 86400000},
          waitTimeMillsInSendQueue);
  v.field({"waitTimeMillsInPullQueue", "ms a pull may wait (frame read -> start) before SYSTEM_BUSY", 0, 86400000},
          waitTimeMillsInPullQueue);
  v.field({"waitTimeMillsInHeartbeatQueue", "ms a heartbeat may wait (frame read -> start) before SYSTEM_BUSY", 0,
           86400000},
          waitTimeMillsInHeartbeatQueue);
  v.field({"waitTimeMillsInTransactionQueue",
           "ms an END_TRANSACTION may wait (frame read -> start) before SYSTEM_BUSY", 0, 86400000},
          waitTimeMillsInTransactionQueue);
  v.field({"sendThreadPoolQueueCapacity",
           "Sends waiting for the store's append thread beyond this many get SYSTEM_BUSY [OVERLOAD] at once", 1,
           100000000},
          sendThreadPoolQueueCapacity);
  v.field({"sendAppendThreadEnable",
           "Sends append on the store's append thread (a stalled append does not hold up the network thread's "
           "other connections); false = on the network thread (lowest single-sender latency)"},
          sendAppendThreadEnable);
  v.field({"startAcceptSendRequestTimeStamp", "Refuse sends before this epoch-ms time"},
          startAcceptSendRequestTimeStamp);
  v.field({"rejectTransactionMessage", "Refuse half (prepared) messages"}, rejectTransactionMessage);
  v.field({"transactionTimeOut", "Half message age before the first check (ms)"}, transactionTimeOut);
  v.field({"transactionCheckMax", "Checks before a half message is discarded"}, transactionCheckMax);
  v.field({"transactionCheckInterval", "Transaction check period (ms)"}, transactionCheckInterval);
  v.field({"rebalanceLockMaxLiveTime",
           "Orderly queue lock lifetime without renewal (ms); Java's system property "
           "rocketmq.broker.rebalance.lockMaxLiveTime",
           100, 86400000},
          rebalanceLockMaxLiveTime);
  v.field({"aclEnable", "Check every request against plain_acl.yml (RocketMQ ACL 1.0)"}, aclEnable);
  v.field({.name = "rocketmqHome",
           .description = "Where the ACL files are: conf/plain_acl.yml and conf/acl/*.yml (default: $ROCKETMQ_HOME)",
           .aliases = {"rocketmq.home.dir"}},
          rocketmqHome);
  v.field({"grpcServerPort",
           "gRPC port of the RocketMQ 5.x MessagingService (TLS and plaintext on one port); 0 = off. "
           "The dev node (namesrv + master) defaults to 8081",
           0, 65535},
          grpcServerPort);
  v.field({"grpcMaxInboundMessageSize", "Largest gRPC request message (bytes); larger ones end with RESOURCE_EXHAUSTED",
           1024, 2147483647},
          grpcMaxInboundMessageSize);
  failover.visit(v);
  v.field({"storeReplyMessageEnable", "Store reply messages in <cluster>_REPLY_TOPIC as well as pushing them"},
          storeReplyMessageEnable);
}

namespace {

std::string localHostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == 0) return "localhost";
  return buf;
}

}  // namespace

void BrokerConfig::resolveDefaults() {
  if (brokerName.empty()) brokerName = localHostName();
  if (rocketmqHome.empty())
    if (const char* home = std::getenv("ROCKETMQ_HOME")) rocketmqHome = home;
  if (brokerIP1.empty()) brokerIP1 = localIPv4();
  if (brokerIP2.empty()) brokerIP2 = brokerIP1;
  if (namesrvAddr.empty()) {
    if (const char* env = std::getenv("NAMESRV_ADDR")) namesrvAddr = env;
  }
}

std::string BrokerConfig::brokerAddr() const { return brokerIP1 + ":" + std::to_string(listenPort); }
std::string BrokerConfig::vipAddr() const { return brokerIP1 + ":" + std::to_string(listenPort - 2); }

std::vector<std::string> BrokerConfig::namesrvList() const { return splitTrimmed(namesrvAddr, ';'); }

Result<void> BrokerConfig::checkNamesrvAddr() const {
  for (const auto& addr : namesrvList()) {
    auto colon = addr.rfind(':');
    int port = 0;
    std::string_view portText = colon == std::string::npos ? std::string_view() : std::string_view(addr).substr(colon + 1);
    auto [p, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
    bool portOk = !portText.empty() && ec == std::errc() && p == portText.data() + portText.size() && port > 0 &&
                  port <= 65535;
    if (colon == 0 || colon == std::string::npos || !portOk) {
      return makeError(1, fmt::format("namesrvAddr: '{}' is not host:port (expected e.g. "
                                      "\"127.0.0.1:9876;nameserver2:9876\")", addr));
    }
  }
  return {};
}

}  // namespace rmq::broker
