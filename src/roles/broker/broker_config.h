#pragma once
// BrokerConfig: the broker keys of PROTOCOL.md §8.1 with Apache RocketMQ's names and defaults
// (common.BrokerConfig + the listenPort of NettyServerConfig). Store keys (flushDiskType,
// storePathRootDir, messageDelayLevel, maxMessageSize, syncFlushTimeout, ...) live in
// store::StoreConfig. visit() lists every field once for loaders, --print-config and
// GET/UPDATE_BROKER_CONFIG.
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/connection_limits.h"
#include "config/field_visitor.h"
#include "roles/broker/failover/failover_config.h"

namespace rmq::broker {

struct BrokerConfig {
  // Identity and addresses.
  std::string brokerClusterName = "DefaultCluster";
  std::string brokerName;        // empty = local host name (resolved by resolveDefaults())
  int64_t brokerId = 0;          // 0 = master
  std::string brokerIP1;         // empty = first non-loopback IPv4 (else 127.0.0.1)
  std::string brokerIP2;         // HA address; empty = brokerIP1
  int32_t listenPort = 10911;    // the VIP channel listens on listenPort - 2
  std::string namesrvAddr;       // "host:port;host:port"; empty = $NAMESRV_ADDR
  // Still empty: with fetchNamesrvAddrByAddressServer the list comes from the address server
  // http://<rmqAddressServerDomain>[:8080]/rocketmq/<rmqAddressServerSubGroup>, every 2 minutes.
  bool fetchNamesrvAddrByAddressServer = false;
  std::string rmqAddressServerDomain = "jmenv.tbsite.net";
  std::string rmqAddressServerSubGroup = "nsaddr";
  std::string regionId = "DefaultRegion";
  bool traceOn = true;
  int32_t brokerPermission = 6;  // PermName READ|WRITE

  // Topics and groups.
  bool autoCreateTopicEnable = true;
  int32_t defaultTopicQueueNums = 8;
  bool clusterTopicEnable = true;
  bool brokerTopicEnable = true;
  bool traceTopicEnable = false;
  std::string msgTraceTopicName = "RMQ_SYS_TRACE_TOPIC";
  bool autoCreateSubscriptionGroup = true;

  // Pull and long polling.
  bool longPollingEnable = true;
  int64_t shortPollingTimeMills = 1000;
  int64_t brokerSuspendMaxTimeMillis = 20000;  // cap on a pull's suspendTimeoutMillis
  bool slaveReadEnable = false;
  bool transferMsgByHeap = true;
  bool enablePropertyFilter = false;
  bool filterSupportRetry = false;
  bool notifyConsumerIdsChangedEnable = true;
  int64_t channelExpiredTimeout = 120000;  // Java's CHANNEL_EXPIRED_TIMEOUT (constant there)
  // GET /metrics rocketmq_client_*: ask online consumers for their running info this often (ms,
  // 0 = never; masters only). rmqnode's own key (the exporter's collection period).
  int64_t clientRuntimeInfoInterval = 10000;

  // Offsets and registration.
  int32_t flushConsumerOffsetInterval = 5000;
  int32_t flushConsumerOffsetHistoryInterval = 60000;
  bool compressedRegister = false;
  bool forceRegister = true;
  int32_t registerNameServerPeriod = 30000;
  int32_t registerBrokerTimeoutMills = 6000;

  // Fast failure (Java BrokerFastFailure; processors/fast_failure.h): a request that waited this
  // long (ms) from the read of its frame to the start of its processor, or a send that waited this
  // long for the commit-log lock, is answered SYSTEM_BUSY at once so that the client can go
  // elsewhere instead of timing out.
  bool brokerFastFailureEnable = true;
  int64_t waitTimeMillsInSendQueue = 200;
  int64_t waitTimeMillsInPullQueue = 5000;
  int64_t waitTimeMillsInHeartbeatQueue = 31000;
  int64_t waitTimeMillsInTransactionQueue = 3000;
  // Sends (and CONSUMER_SEND_MSG_BACK) waiting for the store's append thread beyond this many are
  // answered SYSTEM_BUSY "[OVERLOAD]..." at once (Java's send executor queue capacity).
  int64_t sendThreadPoolQueueCapacity = 10000;
  // Sends append on the store's append thread (true: a stalled append holds that thread, not the
  // network thread's other connections; costs one thread hand-off each way, ~0.15 ms at one sender)
  // or on their network thread (false: lowest single-sender latency; no [OVERLOAD] queue).
  bool sendAppendThreadEnable = true;

  // Send and transactions.
  int64_t startAcceptSendRequestTimeStamp = 0;
  bool rejectTransactionMessage = false;
  int64_t transactionTimeOut = 6000;
  int32_t transactionCheckMax = 15;
  int64_t transactionCheckInterval = 60000;
  // Orderly consumption: a queue lock not renewed for this long may be taken by another client
  // (Java: system property rocketmq.broker.rebalance.lockMaxLiveTime, default 60000 ms).
  int64_t rebalanceLockMaxLiveTime = 60000;
  bool aclEnable = false;
  std::string rocketmqHome;  // ACL files: <rocketmqHome>/conf/plain_acl.yml, conf/acl/ (default $ROCKETMQ_HOME)
  bool storeReplyMessageEnable = true;  // request-reply: also store replies in <cluster>_REPLY_TOPIC
  // RocketMQ 5.x clients (gRPC MessagingService, roles/broker/messaging/): the port (the 5.x
  // proxy's key; 0 = off) and the largest request message it takes (bytes).
  int32_t grpcServerPort = 0;
  int64_t grpcMaxInboundMessageSize = 130 * 1024 * 1024;
  config::ConnectionLimits connection;  // serverChannelMaxIdleTimeSeconds, maxFrameSize, ... (both ports)
  FailoverConfig failover;              // automatic failover (failover/README.md); off by default

  void visit(config::FieldVisitor& v);

  // Fills brokerName / brokerIP1 / brokerIP2 / namesrvAddr left empty with their runtime
  // defaults (host name, local address, $NAMESRV_ADDR).
  void resolveDefaults();
  std::string brokerAddr() const;       // "brokerIP1:listenPort"
  std::string vipAddr() const;          // "brokerIP1:listenPort-2"
  std::vector<std::string> namesrvList() const;  // namesrvAddr split on ';' (trimmed, non-empty)
  // Each namesrvAddr item is "host:port" (as BrokerStartup checks); host names are resolved at
  // connect time, not here, so a name server that is not up yet does not stop the broker.
  Result<void> checkNamesrvAddr() const;
};

}  // namespace rmq::broker
