#include "config/ignored_keys.h"

#include <array>

namespace rmq::config {
namespace {

// Reasons shared by several keys.
constexpr std::string_view kThreadPool =
    "size of a Java thread pool; rmqnode runs requests on its network threads (serverSelectorThreads)";
constexpr std::string_view kPoolQueue =
    "capacity of a Java thread pool's request queue; rmqnode has no such queue: these requests start when read "
    "(a request waits at most waitTimeMillsIn*Queue, then SYSTEM_BUSY; a connection with "
    "connectionMaxInFlightRequests running stops reading). Sends do queue, for the store's append thread: "
    "sendThreadPoolQueueCapacity is live";
constexpr std::string_view kNetty = "Netty tuning; rmqnode's network layer (Asio) sizes its own sockets and buffers";
constexpr std::string_view kNettyClient =
    "setting of the Java broker's outgoing Netty client; rmqnode's client uses its own defaults";
// Java's transient store pool (appends into a locked write buffer, a commit service copies it to
// the file) keeps appends off the page cache's dirty-page stalls. Measured whether our appends
// suffer such stalls under a read-heavy load (issue 25 §3, 2026-12-02, 2-core VM shared with other
// builds, load 9-13): rmqbench producer -t 16 -s 1024 -d 15 on one broker, alone vs while rmqbench
// consumer --from first read ~5 GB of that broker's commit log evicted from the page cache
// (posix_fadvise DONTNEED) at 13-18k msg/s; runs alternated quiet, reads, reads, quiet:
//   p99 16.1 / 17.4 / 14.1 / 7.9 ms, p999 38 / 63 / 50 / 41 ms, max 225 / 183 / 120 / 95 ms
// (TPS 10.4k / 7.3k / 8.1k / 15.1k: the reader takes CPU). No stall the buffer would remove shows
// beyond the box's scheduling noise, and the pool costs a second copy of every message, a commit
// thread and later visibility of a message to consumers: not implemented (src/store/README.md).
constexpr std::string_view kTransientPool =
    "off-heap transient store pool of the Java commit log; rmqnode writes through the page cache "
    "(measured: no append stall under cold reads for it to remove, see src/store/README.md)";
constexpr std::string_view kDledger =
    "DLedger setting; DLedger mode is not supported (the key is ignored while enableDLegerCommitLog is false)";
constexpr std::string_view kHa = "master/slave HA setting rmqnode does not implement";
constexpr std::string_view kCommercial = "commercial statistics of the Java broker; rmqnode does not collect them";
constexpr std::string_view kFilterExt =
    "consume-queue extension / bloom-filter bitmap; rmqnode evaluates SQL92 and tag filters on the messages";
constexpr std::string_view kLmq = "light message queues (LMQ) are not supported";
constexpr std::string_view kStats = "Java broker statistics setting; rmqnode keeps its own counters";
constexpr std::string_view kScheduleAsync =
    "asynchronous delivery of due delayed messages; rmqnode delivers them in order on its delay timer";
constexpr std::string_view kFileDeletion =
    "retry timer of Java's deletion of mapped files still in use; rmqnode's retention (fileReservedTime, "
    "deleteWhen, diskMaxUsedSpaceRatio) does not use it";
constexpr std::string_view kUnusedInJava = "not used by RocketMQ 4.9 itself";
constexpr std::string_view kSlowConsumer =
    "no effect in Apache RocketMQ 4.9.8 either: BrokerController.protectBroker reads the fall-behind sizes of "
    "BrokerStatsManager, which nothing records (recordDiskFallBehindSize has no caller), so no group is ever "
    "disabled; rmqnode keeps that behaviour";
constexpr std::string_view kKvTestEnv = "Java name server test-environment switch; not used";

constexpr std::array kIgnored = std::to_array<IgnoredKey>({
    // BrokerConfig
    {"messageStorePlugIn", "BrokerConfig", "Java message-store plug-in classes cannot be loaded"},
    {"sendMessageThreadPoolNums", "BrokerConfig", kThreadPool},
    {"putMessageFutureThreadPoolNums", "BrokerConfig", kThreadPool},
    {"pullMessageThreadPoolNums", "BrokerConfig", kThreadPool},
    {"processReplyMessageThreadPoolNums", "BrokerConfig", kThreadPool},
    {"queryMessageThreadPoolNums", "BrokerConfig", kThreadPool},
    {"adminBrokerThreadPoolNums", "BrokerConfig", kThreadPool},
    {"clientManageThreadPoolNums", "BrokerConfig", kThreadPool},
    {"consumerManageThreadPoolNums", "BrokerConfig", kThreadPool},
    {"heartbeatThreadPoolNums", "BrokerConfig", kThreadPool},
    {"endTransactionThreadPoolNums", "BrokerConfig", kThreadPool},
    {"putThreadPoolQueueCapacity", "BrokerConfig", kPoolQueue},
    {"pullThreadPoolQueueCapacity", "BrokerConfig", kPoolQueue},
    {"replyThreadPoolQueueCapacity", "BrokerConfig", kPoolQueue},
    {"queryThreadPoolQueueCapacity", "BrokerConfig", kPoolQueue},
    {"clientManagerThreadPoolQueueCapacity", "BrokerConfig", kPoolQueue},
    {"consumerManagerThreadPoolQueueCapacity", "BrokerConfig", kPoolQueue},
    {"heartbeatThreadPoolQueueCapacity", "BrokerConfig", kPoolQueue},
    {"endTransactionPoolQueueCapacity", "BrokerConfig", kPoolQueue},
    {"consumerFallbehindThreshold", "BrokerConfig", kSlowConsumer},
    {"disableConsumeIfConsumerReadSlowly", "BrokerConfig", kSlowConsumer},
    {"filterServerNums", "BrokerConfig", "filter servers were removed from RocketMQ; none are started"},
    {"enableCalcFilterBitMap", "BrokerConfig", kFilterExt},
    {"expectConsumerNumUseFilter", "BrokerConfig", kFilterExt},
    {"maxErrorRateOfBloomFilter", "BrokerConfig", kFilterExt},
    {"filterDataCleanTimeSpan", "BrokerConfig", kFilterExt},
    {"commercialEnable", "BrokerConfig", kCommercial},
    {"commercialTimerCount", "BrokerConfig", kCommercial},
    {"commercialTransCount", "BrokerConfig", kCommercial},
    {"commercialBigCount", "BrokerConfig", kCommercial},
    {"commercialBaseCount", "BrokerConfig", kCommercial},
    {"enableDetailStat", "BrokerConfig", kStats},
    {"autoDeleteUnusedStats", "BrokerConfig", kStats},
    {"isolateLogEnable", "BrokerConfig", "Java log-directory layout; rmqnode logs to logDir"},
    {"highSpeedMode", "BrokerConfig", kUnusedInJava},
    {"maxDelayTime", "BrokerConfig", kUnusedInJava},
    {"configBlackList", "BrokerConfig, NamesrvConfig",
     "keys UPDATE_*_CONFIG may not change; rmqnode refuses run-time changes of every path and string key"},
    // MessageStoreConfig
    {"enableDLegerCommitLog", "MessageStoreConfig", kDledger, "true",
     "DLedger mode is not supported: rmqnode runs RocketMQ's master/slave mode (brokerRole, brokerId); "
     "remove enableDLegerCommitLog or set it to false"},
    {"dLegerGroup", "MessageStoreConfig", kDledger},
    {"dLegerPeers", "MessageStoreConfig", kDledger},
    {"dLegerSelfId", "MessageStoreConfig", kDledger},
    {"preferredLeaderId", "MessageStoreConfig", kDledger},
    {"storePathDLedgerCommitLog", "MessageStoreConfig", kDledger},
    {"slaveTimeout", "MessageStoreConfig", kHa},
    {"enableBatchPush", "MessageStoreConfig", kHa},
    {"transientStorePoolEnable", "MessageStoreConfig", kTransientPool},
    {"transientStorePoolSize", "MessageStoreConfig", kTransientPool},
    {"fastFailIfNoBufferInStorePool", "MessageStoreConfig", kTransientPool},
    {"commitIntervalCommitLog", "MessageStoreConfig", kTransientPool},
    {"commitCommitLogLeastPages", "MessageStoreConfig", kTransientPool},
    {"commitCommitLogThoroughInterval", "MessageStoreConfig", kTransientPool},
    {"destroyMapedFileIntervalForcibly", "MessageStoreConfig", kFileDeletion},
    {"redeleteHangedFileInterval", "MessageStoreConfig", kFileDeletion},
    {"deleteConsumeQueueFilesInterval", "MessageStoreConfig", kFileDeletion},
    {"enableConsumeQueueExt", "MessageStoreConfig", kFilterExt},
    {"mappedFileSizeConsumeQueueExt", "MessageStoreConfig", kFilterExt},
    {"bitMapLengthConsumeQueueExt", "MessageStoreConfig", kFilterExt},
    {"enableLmq", "MessageStoreConfig", kLmq},
    {"enableMultiDispatch", "MessageStoreConfig", kLmq},
    {"maxLmqConsumeQueueNum", "MessageStoreConfig", kLmq},
    {"enableScheduleAsyncDeliver", "MessageStoreConfig", kScheduleAsync},
    {"scheduleAsyncDeliverMaxPendingLimit", "MessageStoreConfig", kScheduleAsync},
    {"scheduleAsyncDeliverMaxResendNum2Blocked", "MessageStoreConfig", kScheduleAsync},
    {"enableScheduleMessageStats", "MessageStoreConfig", kStats},
    {"flushCommitLogTimed", "MessageStoreConfig",
     "Java flush-loop wait style; rmqnode's flush thread waits flushIntervalCommitLog or a wake-up"},
    {"flushLeastPagesWhenWarmMapedFile", "MessageStoreConfig",
     "flush granularity of Java's file warm-up; rmqnode's warm-up (warmMapedFileEnable) does not flush"},
    {"useReentrantLockWhenPutMessage", "MessageStoreConfig",
     "choice of the Java commit-log lock; rmqnode appends from a single writer without that lock"},
    {"debugLockEnable", "MessageStoreConfig", "Java lock debugging; not applicable"},
    {"duplicationEnable", "MessageStoreConfig",
     "Java's duplication mode dispatches only up to a confirm offset that a message-store plug-in sets "
     "(MessageStore.setConfirmOffset: nothing in RocketMQ 4.9.8 calls it); plug-ins cannot be loaded in rmqnode"},
    {"diskFallRecorded", "MessageStoreConfig", kStats},
    {"putMsgIndexHightWater", "MessageStoreConfig", kUnusedInJava},
    {"readOnlyCommitLogStorePaths", "MessageStoreConfig",
     "multi-path commit logs are not supported; the commit log lives in storePathCommitLog"},
    // NettyServerConfig (serverChannelMaxIdleTimeSeconds is implemented: config/connection_limits.h)
    {"serverWorkerThreads", "NettyServerConfig", "the broker runs requests on its network threads (serverSelectorThreads)"},
    {"serverCallbackExecutorThreads", "NettyServerConfig", kThreadPool},
    {"serverOnewaySemaphoreValue", "NettyServerConfig", kNetty},
    {"serverAsyncSemaphoreValue", "NettyServerConfig", kNetty},
    {"serverSocketSndBufSize", "NettyServerConfig", kNetty},
    {"serverSocketRcvBufSize", "NettyServerConfig", kNetty},
    {"serverSocketBacklog", "NettyServerConfig", kNetty},
    {"serverPooledByteBufAllocatorEnable", "NettyServerConfig", kNetty},
    {"useEpollNativeSelector", "NettyServerConfig", kNetty},
    {"writeBufferHighWaterMark", "NettyServerConfig, NettyClientConfig", kNetty},
    {"writeBufferLowWaterMark", "NettyServerConfig, NettyClientConfig", kNetty},
    // NettyClientConfig
    {"clientWorkerThreads", "NettyClientConfig", kNettyClient},
    {"clientCallbackExecutorThreads", "NettyClientConfig", kNettyClient},
    {"clientOnewaySemaphoreValue", "NettyClientConfig", kNettyClient},
    {"clientAsyncSemaphoreValue", "NettyClientConfig", kNettyClient},
    {"connectTimeoutMillis", "NettyClientConfig", kNettyClient},
    {"channelNotActiveInterval", "NettyClientConfig", kNettyClient},
    {"clientChannelMaxIdleTimeSeconds", "NettyClientConfig", kNettyClient},
    {"clientSocketSndBufSize", "NettyClientConfig", kNettyClient},
    {"clientSocketRcvBufSize", "NettyClientConfig", kNettyClient},
    {"clientPooledByteBufAllocatorEnable", "NettyClientConfig", kNettyClient},
    {"clientCloseSocketIfTimeout", "NettyClientConfig", kNettyClient},
    // NamesrvConfig
    {"productEnvName", "NamesrvConfig", kKvTestEnv},
    {"clusterTest", "NamesrvConfig", kKvTestEnv},
    // RocketMQ 3.x keys still found in circulating broker-a.properties examples.
    {"checkTransactionMessageEnable", "RocketMQ 3.x BrokerConfig",
     "3.x transaction-check switch; transactions use transactionTimeOut, transactionCheckMax and "
     "transactionCheckInterval"},
});

}  // namespace

std::span<const IgnoredKey> ignoredKeys() { return kIgnored; }

const IgnoredKey* findIgnoredKey(std::string_view key) {
  for (const auto& k : kIgnored) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

}  // namespace rmq::config
