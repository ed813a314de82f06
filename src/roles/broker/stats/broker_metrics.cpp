#include "roles/broker/stats/broker_metrics.h"


#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "roles/broker/clients/client_manager.h"
#include "roles/broker/delivery/pull_request_hold.h"
#include "roles/broker/delivery/timer_message_service.h"
#include "roles/broker/pop/pop_service.h"
#include "roles/broker/processors/admin_support.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/metadata/topic_config.h"
#include "roles/broker/replication/broker_replication.h"
#include "roles/broker/stats/broker_runtime_info.h"
#include "roles/broker/stats/broker_stats.h"
#include "roles/broker/stats/client_runtime_stats.h"
#include "roles/broker/stats/group_lag.h"
#include "roles/broker/stats/request_latency.h"
#include "store/disk_space.h"
#include "store/message_store.h"
#include "store/store_config.h"

namespace rmq::broker {
namespace {

using metrics::LabelList;
using metrics::TextWriter;

// rocketmq_brokeruntime_<suffix> from the runtime table key (one value, or a "10s 1min 10min"
// TPS triple split into _tps10 / _tps60 / _tps600).
struct RuntimeGauge {
  std::string_view key;
  std::string_view suffix;
  bool tps = false;
};
constexpr RuntimeGauge kRuntimeGauges[] = {
    {"msgPutTotalTodayNow", "msg_put_total_today_now"},
    {"msgGetTotalTodayNow", "msg_gettotal_today_now"},
    {"msgPutTotalTodayMorning", "msg_puttotal_todaymorning"},
    {"msgGetTotalTodayMorning", "msg_gettotal_todaymorning"},
    {"msgPutTotalYesterdayMorning", "msg_puttotal_yesterdaymorning"},
    {"msgGetTotalYesterdayMorning", "msg_gettotal_yesterdaymorning"},
    {"dispatchBehindBytes", "dispatch_behind_bytes"},
    {"putMessageTimesTotal", "putmessage_times_total"},
    {"earliestMessageTimeStamp", "earliest_message_timestamp"},
    {"startAcceptSendRequestTimeStamp", "start_accept_sendrequest_time"},
    {"pageCacheLockTimeMills", "pagecache_lock_time_mills"},
    {"commitLogDiskRatio", "commitlog_disk_ratio"},
    {"consumeQueueDiskRatio", "consumequeue_disk_ratio"},
    {"commitLogMaxOffset", "commitlog_maxoffset"},
    {"commitLogMinOffset", "commitlog_minoffset"},
    {"remainHowManyDataToFlush", "remain_howmanydata_toflush"},
    {"remainTransientStoreBufferNumbs", "remain_transientstore_buffer_numbs"},
    {"sendThreadPoolQueueSize", "send_threadpool_queue_size"},
    {"pullThreadPoolQueueSize", "pull_threadpoolqueue_size"},
    {"queryThreadPoolQueueSize", "query_threadpoolqueue_size"},
    {"sendThreadPoolQueueCapacity", "send_threadpoolqueue_capacity"},
    {"pullThreadPoolQueueCapacity", "pull_threadpoolqueue_capacity"},
    {"queryThreadPoolQueueCapacity", "query_threadpool_queue_capacity"},
    {"putMessageSizeTotal", "put_message_size_total"},
    {"putMessageAverageSize", "put_message_average_size"},
    {"putMessageEntireTimeMax", "putmessage_entire_time_max"},
    {"getMessageEntireTimeMax", "getmessage_entire_time_max"},
    {"dispatchMaxBuffer", "dispatch_maxbuffer"},
    {"sendThreadPoolQueueHeadWaitTimeMills", "send_threadpoolqueue_headwait_timemills"},
    {"pullThreadPoolQueueHeadWaitTimeMills", "pull_threadpoolqueue_headwait_timemills"},
    {"queryThreadPoolQueueHeadWaitTimeMills", "query_threadpoolqueue_headwait_timemills"},
    {"putTps", "put_tps", true},
    {"getFoundTps", "getfound_tps", true},
    {"getMissTps", "getmiss_tps", true},
    {"getTotalTps", "gettotal_tps", true},
    {"getTransferedTps", "gettransfered_tps", true},
};

double toNumber(std::string_view s) { return std::strtod(std::string(s).c_str(), nullptr); }

void writeRuntime(BrokerContext& ctx, const RequestLatency* latency, TextWriter& w) {
  RuntimeTable table = runtimeInfoTable(ctx, ctx.putStats.get());
  std::unordered_map<std::string_view, std::string_view> byKey;
  for (auto& [k, v] : table) byKey.emplace(k, v);
  auto find = [&](std::string_view k) {
    auto it = byKey.find(k);
    return it == byKey.end() ? std::string_view() : it->second;
  };
  std::string addr = ctx.config.brokerAddr();
  std::string boot(find("bootTimestamp"));
  std::string version(find("brokerVersion"));
  // Label names of the exporter's BROKER_RUNTIME_METRIC_LABEL_NAMES.
  LabelList labels{{"cluster", ctx.config.brokerClusterName}, {"brokerIP", addr}, {"brokerHost", ctx.config.brokerName},
                   {"des", ""}, {"boottime", boot}, {"broker_version", version}};
  // HELP as the exporter's: "brokerRuntime" + the key capitalized (+ the TPS window).
  auto gauge = [&](const std::string& name, std::string_view key, std::string_view window, double v) {
    std::string help = "brokerRuntime" + std::string(key) + std::string(window);
    if (help.size() > 13) help[13] = static_cast<char>(std::toupper(static_cast<unsigned char>(help[13])));
    w.family(name, help, "gauge");
    w.sample(name, labels, v);
  };
  for (const auto& g : kRuntimeGauges) {
    std::string_view v = find(g.key);
    if (v.empty()) continue;
    std::string name = "rocketmq_brokeruntime_" + std::string(g.suffix);
    if (!g.tps) {
      gauge(name, g.key, "", toNumber(v));
      continue;
    }
    std::string text(v);
    char* end = nullptr;
    double t10 = std::strtod(text.c_str(), &end);
    double t60 = std::strtod(end, &end);
    double t600 = std::strtod(end, &end);
    gauge(name + "10", g.key, "10", t10);
    gauge(name + "60", g.key, "60", t60);
    gauge(name + "600", g.key, "600", t600);
  }
  if (latency) {  // Java's putMessageDistributeTime, from the send latencies
    for (auto [suffix, count] : latency->putDistribution()) {
      std::string name = "rocketmq_brokeruntime_pmdt_" + std::string(suffix);
      w.family(name, "PutMessageDistributeTimeMap" + std::string(suffix), "gauge");
      w.sample(name, labels, static_cast<double>(count));
    }
    gauge("rocketmq_brokeruntime_put_latency_99", "putLatency99", "", latency->putLatencyMillis(0.99));
    gauge("rocketmq_brokeruntime_put_latency_999", "putLatency999", "", latency->putLatencyMillis(0.999));
  }
  if (auto disk = store::diskSpace(ctx.storeConfig.commitLogDir())) {  // Java: getTotalSpace / getUsableSpace
    gauge("rocketmq_brokeruntime_commitlogdir_capacity_total", "commitLogDirCapacityTotal", "",
          static_cast<double>(disk->totalBytes));
    gauge("rocketmq_brokeruntime_commitlogdir_capacity_free", "commitLogDirCapacityFree", "",
          static_cast<double>(disk->usableBytes));
  }
}

struct GroupTopic {
  std::string group, topic;
  bool operator<(const GroupTopic& o) const { return std::tie(group, topic) < std::tie(o.group, o.topic); }
};

// (group, topic) pairs with committed offsets here, plus online consumers' subscriptions.
std::set<GroupTopic> groupTopics(BrokerContext& ctx) {
  std::set<GroupTopic> out;
  for (auto& [group, topic] : ctx.offsets.groupTopicPairs()) out.insert({group, topic});
  for (auto& group : ctx.clients.consumerGroups()) {
    auto info = ctx.clients.consumerGroup(group);
    if (!info) continue;
    for (auto& [topic, _] : info->subscriptions) out.insert({group, topic});
  }
  return out;
}

void writeTopics(BrokerContext& ctx, const std::map<std::string, int64_t>& offsets, const LabelList& base,
                 TextWriter& w) {
  const auto* sampler = ctx.putStats.get();
  w.family("rocketmq_producer_offset", "TopicOffset", "gauge");
  w.family("rocketmq_producer_tps", "TopicPutNums", "gauge");
  w.family("rocketmq_topic_retry_offset", "TopicRetryOffset", "gauge");
  w.family("rocketmq_topic_dlq_offset", "TopicRetryOffset", "gauge");
  w.family("rocketmq_producer_message_size", "TopicPutMessageSize", "gauge");
  for (auto& [topic, sum] : offsets) {
    if (topics::isRetryTopic(topic)) {
      w.sample("rocketmq_topic_retry_offset", {base[0], base[1], {"topic", topic}}, static_cast<double>(sum));
    } else if (topics::isDlqTopic(topic)) {
      std::string_view group = std::string_view(topic).substr(topics::DLQ_GROUP_TOPIC_PREFIX.size());
      w.sample("rocketmq_topic_dlq_offset", {base[0], base[1], {"group", group}}, static_cast<double>(sum));
    } else {
      w.sample("rocketmq_producer_offset", {base[0], base[1], {"topic", topic}}, static_cast<double>(sum));
      w.sample("rocketmq_producer_tps", {base[0], base[1], {"topic", topic}}, topicPutTps(sampler, topic));
      w.sample("rocketmq_producer_message_size", {base[0], base[1], {"topic", topic}},
               putStats().topics.lastMinute(topic, "").bytesPerSecond);
    }
  }
}

// Milliseconds the oldest unconsumed message of the group has waited, over the topic's queues
// here (the exporter's rocketmq_group_get_latency_by_storetime: now - store time of the message
// at the committed offset, or at the queue's min offset when that one is gone; 0 without backlog).
int64_t latencyByStoreTime(BrokerContext& ctx, const std::vector<QueueLag>& lags) {
  int64_t now = nowMillis(), worst = 0;
  for (const auto& lag : lags) {
    if (lag.diff() <= 0) continue;
    int64_t stored = ctx.store.messageStoreTime(lag.topic, lag.queueId, lag.consumerOffset);
    if (stored < 0) {
      int64_t min = ctx.store.minOffsetInQueue(lag.topic, lag.queueId);
      stored = ctx.store.messageStoreTime(lag.topic, lag.queueId, min);
    }
    if (stored > 0) worst = std::max(worst, now - stored);
  }
  return worst;
}

// rocketmq_group_count{caddr, localaddr, group}: online consumers of a group, their connection
// addresses and client ids comma-joined (the exporter's buildClientAddresses).
void writeGroupCount(const std::string& group, const std::optional<ConsumerGroupInfo>& info, TextWriter& w) {
  std::string addrs, ids;
  size_t online = 0;
  if (info) {
    for (const auto& [_, ch] : info->channels) {
      if (online++ > 0) {
        addrs += ',';
        ids += ',';
      }
      addrs += ch.conn ? ch.conn->remoteAddress() : std::string();
      ids += ch.clientId;
    }
  }
  w.sample("rocketmq_group_count", {{"caddr", addrs}, {"localaddr", ids}, {"group", group}},
           static_cast<double>(online));
}

void writeGroups(BrokerContext& ctx, const LabelList& base, TextWriter& w) {
  w.family("rocketmq_group_diff", "GroupDiff", "gauge");
  w.family("rocketmq_group_retrydiff", "GroupRetryDiff", "gauge");
  w.family("rocketmq_group_dlqdiff", "GroupDLQDiff", "gauge");
  w.family("rocketmq_group_count", "GroupCount", "gauge");
  w.family("rocketmq_consumer_offset", "GroupBrokerTotalOffset", "gauge");
  w.family("rocketmq_consumer_tps", "GroupGetNums", "gauge");
  w.family("rocketmq_group_consume_tps", "GroupConsumeTPS", "gauge");
  w.family("rocketmq_group_consume_total_offset", "GroupConsumeTotalOffset", "gauge");
  w.family("rocketmq_consumer_message_size", "GroupGetMessageSize", "gauge");
  w.family("rocketmq_send_back_nums", "SendBackNums", "gauge");
  w.family("rocketmq_group_get_latency_by_storetime", "GroupGetLatencyByStoreTime", "gauge");
  std::string lastGroup;
  for (const auto& gt : groupTopics(ctx)) {
    auto info = ctx.clients.consumerGroup(gt.group);
    if (gt.group != lastGroup) writeGroupCount(gt.group, info, w);
    lastGroup = gt.group;
    size_t online = info ? info->channels.size() : 0;
    bool broadcasting = info && info->messageModel == "BROADCASTING";
    int64_t diff = 0, consumerTotal = 0;
    auto lags = groupLag(ctx, gt.group, {gt.topic}, LagQueues::Read);  // the exporter reads GET_CONSUME_STATS
    if (lags.empty()) continue;  // topic unknown here
    for (const auto& lag : lags) {
      diff += lag.diff();
      consumerTotal += lag.consumerOffset;
    }
    LabelList labels{base[0], base[1], {"topic", gt.topic}, {"group", gt.group}};
    if (!broadcasting) {  // as the exporter: lag is only meaningful for clustering consumers
      std::string count = std::to_string(online);
      LabelList diffLabels{{"group", gt.group}, {"topic", gt.topic}, {"countOfOnlineConsumers", count}, {"msgModel", "1"}};
      std::string_view family = topics::isRetryTopic(gt.topic) ? "rocketmq_group_retrydiff"
                                : topics::isDlqTopic(gt.topic) ? "rocketmq_group_dlqdiff"
                                                               : "rocketmq_group_diff";
      w.sample(family, diffLabels, static_cast<double>(diff));
      w.sample("rocketmq_group_get_latency_by_storetime", labels,
               static_cast<double>(latencyByStoreTime(ctx, lags)));
    }
    auto gets = getStats().groups.lastMinute(gt.topic, gt.group);
    w.sample("rocketmq_consumer_offset", labels, static_cast<double>(consumerTotal));
    w.sample("rocketmq_group_consume_total_offset", labels, static_cast<double>(consumerTotal));
    w.sample("rocketmq_consumer_tps", labels, gets.countPerSecond);
    w.sample("rocketmq_group_consume_tps", labels, gets.countPerSecond);
    w.sample("rocketmq_consumer_message_size", labels, gets.bytesPerSecond);
    w.sample("rocketmq_send_back_nums", labels,
             static_cast<double>(putStats().sendBacks.lastMinute(gt.topic, gt.group).count));
  }
}

// rocketmq_producer_count{cluster, broker, group}: producers connected to this broker per group.
void writeProducers(BrokerContext& ctx, const LabelList& base, TextWriter& w) {
  w.family("rocketmq_producer_count", "producer instance counter", "gauge");
  for (const auto& group : ctx.clients.producerGroups()) {
    auto channels = ctx.clients.producerGroup(group);
    if (!channels) continue;
    w.sample("rocketmq_producer_count", {base[0], base[1], {"group", group}}, static_cast<double>(channels->size()));
  }
}

// Per POP group and topic (5.x consumers): in flight, due for redelivery, dead-lettered.
void writePopGroups(pop::PopService& service, const LabelList& base, TextWriter& w) {
  struct Sums {
    uint64_t inFlight = 0, due = 0, deadLettered = 0;
  };
  std::map<std::pair<std::string, std::string>, Sums> groups;  // (group, topic)
  for (const auto& f : service.figures()) {
    Sums& s = groups[{f.key.group, f.key.topic}];
    s.inFlight += f.inFlight;
    s.due += f.due;
    s.deadLettered += f.deadLettered;
  }
  // Each family's samples together (the exposition format groups a family's lines).
  auto family = [&](std::string_view name, std::string_view help, std::string_view type, uint64_t Sums::*field) {
    w.family(name, help, type);
    for (const auto& [gt, s] : groups) {
      LabelList l = base;
      l.emplace_back("group", gt.first);
      l.emplace_back("topic", gt.second);
      w.sample(name, l, static_cast<double>(s.*field));
    }
  };
  family("rmqnode_pop_group_inflight", "POP messages of the group popped and not acked yet (due ones included).",
         "gauge", &Sums::inFlight);
  family("rmqnode_pop_group_due", "POP messages of the group whose invisible time ended, waiting for its next pop.",
         "gauge", &Sums::due);
  family("rmqnode_pop_group_dead_lettered_total", "POP messages of the group moved to %DLQ%<group> since start.",
         "counter", &Sums::deadLettered);
}

void writeOwn(BrokerContext& ctx, const BrokerMetricsSources& src, int64_t stored, const LabelList& base,
              TextWriter& w) {
  auto one = [&](std::string_view name, std::string_view help, std::string_view type, double v) {
    w.family(name, help, type);
    w.sample(name, base, v);
  };
  int64_t maxPhy = ctx.store.maxPhyOffset();
  one("rmqnode_messages_stored_total", "Messages in this broker's consume queues (sum of queue max offsets).",
      "counter", static_cast<double>(stored));
  one("rmqnode_messages_pulled_total", "Messages returned by pulls since start.", "counter",
      static_cast<double>(getStats().transferredMsgs.load(std::memory_order_relaxed)));
  one("rmqnode_commitlog_write_bytes_total", "Commit-log end offset: bytes ever written (rate() = write rate).",
      "counter", static_cast<double>(maxPhy));
  one("rmqnode_commitlog_unflushed_bytes", "Commit-log bytes written but not yet flushed.", "gauge",
      static_cast<double>(maxPhy - ctx.store.flushedPhyOffset()));
  one("rmqnode_pull_parked", "Long-polling pulls parked now, waiting for messages.", "gauge",
      static_cast<double>(ctx.pullHold.parkedCount()));
  w.family("rmqnode_connections", "Open remoting connections per role.", "gauge");
  LabelList conn = base;
  conn.emplace_back("role", "broker");
  w.sample("rmqnode_connections", conn, static_cast<double>(src.connections));

  if (ctx.timer) {
    TimerStats t = ctx.timer->stats();
    one("rmqnode_timer_pending", "Timer messages waiting for their delivery time (0 on a slave).", "gauge",
        static_cast<double>(t.pending));
    one("rmqnode_timer_delivered_total", "Timer messages delivered to their real topic since start.", "counter",
        static_cast<double>(t.delivered));
    one("rmqnode_timer_cancelled_total", "Timer messages cancelled by a delete marker since start.", "counter",
        static_cast<double>(t.cancelled));
    one("rmqnode_timer_rolled_total", "Far timer messages re-parked closer to their time (timerRollWindowSlot) since start.",
        "counter", static_cast<double>(t.rolled));
    one("rmqnode_timer_overdue_ms", "How far behind its time the earliest pending timer message is (backlog).",
        "gauge", static_cast<double>(t.overdueMs));
    one("rmqnode_timer_lag_p99_ms", "Delivery lag p99 (store time - due time) of the last 8192 deliveries.", "gauge",
        static_cast<double>(t.lagP99Ms));
  }

  if (ctx.pop) {
    pop::PopStats p = ctx.pop->stats();
    one("rmqnode_pop_inflight", "POP messages popped and not acked yet, every group (0 on a slave).", "gauge",
        static_cast<double>(p.inFlight));
    one("rmqnode_pop_popped_total", "POP deliveries since start (first ones and redeliveries).", "counter",
        static_cast<double>(p.popped));
    one("rmqnode_pop_acked_total", "POP acks since start.", "counter", static_cast<double>(p.acked));
    one("rmqnode_pop_redelivered_total", "POP messages whose invisible time ended un-acked since start.", "counter",
        static_cast<double>(p.redelivered));
    one("rmqnode_pop_dead_lettered_total", "POP messages moved to %DLQ%<group> since start.", "counter",
        static_cast<double>(p.deadLettered));
    writePopGroups(*ctx.pop, base, w);
  }

  auto gc = ctx.store.groupCommitHistograms();
  w.histogram("rmqnode_group_commit_flush_seconds", "Time inside msync per group-commit flush (SYNC_FLUSH).", base,
              gc.flushSeconds);
  w.histogram("rmqnode_group_commit_batch_size", "Sends completed per group-commit flush (SYNC_FLUSH).", base,
              gc.batchSize);
  one("rmqnode_group_commit_already_flushed_total",
      "SYNC_FLUSH sends whose bytes were already flushed when they came to wait (in no batch).", "counter",
      static_cast<double>(ctx.store.groupCommitStats().alreadyFlushed));

  w.family("rmqnode_disk_used_ratio", "Used fraction of the file system holding the store path.", "gauge");
  for (auto [which, path] : {std::pair<std::string_view, std::string>{"commitlog", ctx.storeConfig.commitLogDir()},
                             {"root", ctx.storeConfig.rootDir()}}) {
    double ratio = store::diskUsedRatio(path);  // the store's own measure (diskMaxUsedSpaceRatio ...)
    if (ratio < 0) continue;
    LabelList l = base;
    l.emplace_back("path", which);
    w.sample("rmqnode_disk_used_ratio", l, ratio);
  }

  if (ctx.replication) {
    w.family("rmqnode_replication_lag_bytes", "Master: commit-log bytes a slave has not acknowledged.", "gauge");
    w.family("rocketmq_broker_commitlog_diff", "brokerCommitLogDiffGauge", "gauge");
    for (auto& [slave, ack] : ctx.replication->slaveAcks()) {
      double lag = static_cast<double>(maxPhy - std::max<int64_t>(ack, 0));
      LabelList l = base;
      l.emplace_back("slave", slave);
      w.sample("rmqnode_replication_lag_bytes", l, lag);
      w.sample("rocketmq_broker_commitlog_diff", {base[0], {"brokerIP", slave}, base[1]}, lag);
    }
  }
  if (src.latency) src.latency->write(w, base);
}

}  // namespace

void writeBrokerMetrics(BrokerContext& ctx, const BrokerMetricsSources& sources, TextWriter& w) {
  std::string addr = ctx.config.brokerAddr();
  LabelList base{{"cluster", ctx.config.brokerClusterName}, {"broker", ctx.config.brokerName}};
  w.family("rmqnode_broker_info", "This broker: 1, with its name, id, role and address as labels.", "gauge");
  std::string id = std::to_string(ctx.config.brokerId);
  w.sample("rmqnode_broker_info", {base[0], base[1], {"brokerId", id}, {"brokerIP", addr},
                                   {"role", ctx.storeConfig.brokerRole}}, 1);
  LabelList nums{base[0], {"brokerIP", addr}, base[1]};
  w.family("rocketmq_broker_tps", "BrokerPutNums", "gauge");
  w.sample("rocketmq_broker_tps", nums, brokerPutTps(ctx.putStats.get()));
  w.family("rocketmq_broker_qps", "BrokerGetNums", "gauge");
  w.sample("rocketmq_broker_qps", nums, brokerGetTps(ctx.putStats.get()));
  std::map<std::string, int64_t> perTopic;
  int64_t stored = storedMessages(ctx, &perTopic);
  writeTopics(ctx, perTopic, base, w);
  writeGroups(ctx, base, w);
  writeProducers(ctx, base, w);
  if (sources.clientRuntime) ClientRuntimeStats::write(sources.clientRuntime->snapshot(), w);
  writeRuntime(ctx, sources.latency, w);
  writeOwn(ctx, sources, stored, base, w);
}

}  // namespace rmq::broker
