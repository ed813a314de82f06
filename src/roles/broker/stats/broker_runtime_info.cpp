#include "roles/broker/stats/broker_runtime_info.h"

#include <asio/steady_timer.hpp>
#include <chrono>
#include <cmath>
#include <ctime>
#include <deque>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "roles/broker/processors/admin_support.h"
#include "roles/broker/stats/broker_stats.h"
#include "roles/broker/stats/request_latency.h"
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/delivery/schedule_message_service.h"
#include "roles/broker/delivery/timer_message_service.h"
#include "roles/broker/pop/pop_service.h"
#include "roles/broker/replication/broker_replication.h"
#include "roles/broker/metadata/topic_config.h"
#include "store/disk_space.h"
#include "store/append_thread.h"
#include "store/message_store.h"

namespace rmq::broker {

int64_t storedMessages(BrokerContext& ctx, std::map<std::string, int64_t>* perTopic) {
  int64_t total = 0;
  for (auto& [topic, queues] : ctx.store.queues()) {
    if (topic == topics::SCHEDULE_TOPIC) continue;
    int64_t sum = 0;
    for (int q : queues) sum += std::max<int64_t>(0, ctx.store.maxOffsetInQueue(topic, q));
    if (perTopic) (*perTopic)[topic] = sum;
    total += sum;
  }
  return total;
}

class PutStatsSampler : public std::enable_shared_from_this<PutStatsSampler> {
 public:
  explicit PutStatsSampler(BrokerContext& ctx) : ctx_(ctx), bootMs_(nowMillis()), windows_(bootMs_) {}

  void start() {
    sample();
    scheduleNext();
  }

  int64_t bootMs() const { return bootMs_; }
  // Over the last minute of samples (oldest kept vs newest).
  double topicTps(const std::string& topic) const {
    std::lock_guard lk(mu_);
    if (topicSamples_.size() < 2) return 0.0;
    auto& [t1, last] = topicSamples_.back();
    auto& [t0, first] = topicSamples_.front();
    auto b = last.find(topic), a = first.find(topic);
    if (b == last.end() || t1 <= t0) return 0.0;
    int64_t before = a == first.end() ? 0 : a->second;
    return static_cast<double>(b->second - before) * 1000.0 / static_cast<double>(t1 - t0);
  }
  int64_t totalSinceBoot(StatKind k) const {
    std::lock_guard lk(mu_);
    return samples_.empty() ? 0 : samples_.back().counts[k] - baseline_[k];
  }
  int64_t totalAtMidnight(StatKind k) const {
    std::lock_guard lk(mu_);
    return atMidnight_[k];
  }
  int64_t totalAtYesterdayMidnight(StatKind k) const {
    std::lock_guard lk(mu_);
    return atYesterdayMidnight_[k];
  }
  // Events per second over the last `seconds` (what samples we have).
  double tps(StatKind k, int seconds) const {
    std::lock_guard lk(mu_);
    if (samples_.size() < 2) return 0.0;
    auto& last = samples_.back();
    const Sample* first = &samples_.front();
    for (auto& s : samples_) {
      if (last.ms - s.ms <= seconds * 1000) {
        first = &s;
        break;
      }
    }
    int64_t dt = last.ms - first->ms;
    return dt <= 0 ? 0.0 : static_cast<double>(last.counts[k] - first->counts[k]) * 1000.0 / static_cast<double>(dt);
  }
  // Java's putMessageDistributeTime: sends per time range over the last whole minute,
  // "[<=0ms]:N [0~10ms]:N ... [10s~]:N " (trailing blank); "null" during the first minute.
  std::string putDistributionText() const {
    std::lock_guard lk(mu_);
    if (!lastMinute_) return "null";
    std::string out;
    const auto& ranges = RequestLatency::javaPutRanges();
    for (size_t i = 0; i < ranges.size() && i < lastMinute_->ranges.size(); ++i)
      out += fmt::format("{}:{} ", ranges[i], lastMinute_->ranges[i]);
    return out;
  }
  // Java's putLatency99 / putLatency999: the send-time quantile (ms) over the last whole minute.
  double putLatencyMillis(double q) const {
    std::lock_guard lk(mu_);
    return lastMinute_ ? metrics::quantile(lastMinute_->latencies, q) * 1000.0 : 0.0;
  }

 private:
  struct Sample {
    int64_t ms;
    Counts counts;
  };
  // The send latencies of one minute: per Java range, and the histogram for the quantiles.
  struct SendMinute {
    std::vector<uint64_t> ranges;
    metrics::Histogram::Snapshot latencies;
  };

  static SendMinute sendTotals(const RequestLatency& latency) {
    SendMinute m;
    for (auto& [suffix, count] : latency.putDistribution()) m.ranges.push_back(count);
    m.latencies = latency.sendLatencies();
    return m;
  }
  static SendMinute minus(SendMinute now, const SendMinute& before) {
    for (size_t i = 0; i < now.ranges.size() && i < before.ranges.size(); ++i) now.ranges[i] -= before.ranges[i];
    auto& l = now.latencies;
    for (size_t i = 0; i < l.cumulative.size() && i < before.latencies.cumulative.size(); ++i)
      l.cumulative[i] -= before.latencies.cumulative[i];
    l.count -= before.latencies.count;
    l.sum -= before.latencies.sum;
    return now;
  }
  // Java's StoreStatsService rolls its put-time ranges once a minute (printTps).
  void rollSendMinute(int64_t now) {
    if (!ctx_.latency || now - minuteStartMs_ < 60000) return;
    SendMinute totals = sendTotals(*ctx_.latency);
    std::lock_guard lk(mu_);
    if (minuteStart_) lastMinute_ = minus(totals, *minuteStart_);
    minuteStart_ = std::move(totals);
    minuteStartMs_ = now;
  }

  Counts countAll(std::map<std::string, int64_t>& perTopic) const {
    auto& g = getStats();
    Counts c{};
    c[StatPut] = storedMessages(ctx_, &perTopic);
    c[StatGetFound] = g.foundTimes.load(std::memory_order_relaxed);
    c[StatGetMiss] = g.missTimes.load(std::memory_order_relaxed);
    c[StatGetTransferred] = g.transferredMsgs.load(std::memory_order_relaxed);
    return c;
  }

  // The timer belongs to its pending handler, not to the sampler: when the background io_context
  // is destroyed first (controller shutdown), it destroys the handler and the timer with it, and
  // the sampler (owned by a processor in the dispatcher) never touches a dead io_context.
  void scheduleNext() {
    if (!ctx_.background || ctx_.isShuttingDown()) return;
    auto timer = std::make_shared<asio::steady_timer>(ctx_.background, std::chrono::seconds(1));
    timer->async_wait([weak = weak_from_this(), timer](std::error_code ec) {
      if (ec) return;
      if (auto self = weak.lock()) {
        self->sample();
        self->scheduleNext();
      }
    });
  }

  void sample() {
    if (ctx_.isShuttingDown()) return;
    int64_t now = nowMillis();
    std::map<std::string, int64_t> perTopic;
    Counts counts = countAll(perTopic);
    sampleKeyedCounters(now, windows_.due(now));
    rollSendMinute(now);
    std::lock_guard lk(mu_);
    topicSamples_.emplace_back(now, std::move(perTopic));
    while (topicSamples_.size() > 61) topicSamples_.pop_front();
    if (samples_.empty()) baseline_ = counts;
    std::time_t secs = static_cast<std::time_t>(now / 1000);
    std::tm tm{};
    localtime_r(&secs, &tm);
    if (lastDay_ != -1 && tm.tm_yday != lastDay_) {
      atYesterdayMidnight_ = atMidnight_;
      for (size_t k = 0; k < counts.size(); ++k) atMidnight_[k] = counts[k] - baseline_[k];
    }
    lastDay_ = tm.tm_yday;
    samples_.push_back(Sample{now, counts});
    while (samples_.size() > 601) samples_.pop_front();
  }

  BrokerContext& ctx_;
  int64_t bootMs_;
  SamplingSchedule windows_;  // Java's StatsItemSet cadence (10 s / 10 min / 1 h from boot)
  mutable std::mutex mu_;
  std::deque<Sample> samples_;
  std::deque<std::pair<int64_t, std::map<std::string, int64_t>>> topicSamples_;  // last 61 s
  Counts baseline_{};
  Counts atMidnight_{};
  Counts atYesterdayMidnight_{};
  int lastDay_ = -1;
  int64_t minuteStartMs_ = 0;              // the first sample starts the first minute
  std::optional<SendMinute> minuteStart_;  // send totals when the current minute began
  std::optional<SendMinute> lastMinute_;   // the last whole minute's sends
};

std::shared_ptr<PutStatsSampler> startPutStatsSampler(BrokerContext& ctx) {
  if (ctx.putStats) return ctx.putStats;
  auto s = std::make_shared<PutStatsSampler>(ctx);
  s->start();
  ctx.putStats = s;
  return s;
}

double topicPutTps(const PutStatsSampler* sampler, const std::string& topic) {
  return sampler ? sampler->topicTps(topic) : 0.0;
}
double brokerPutTps(const PutStatsSampler* sampler) { return sampler ? sampler->tps(StatPut, 60) : 0.0; }
double brokerGetTps(const PutStatsSampler* sampler) { return sampler ? sampler->tps(StatGetTransferred, 60) : 0.0; }

namespace {
// Java's MixAll.humanReadableByteCount(bytes, false): "512 B", "1.5 KiB", "3.0 GiB".
std::string humanReadableBytes(int64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  int exp = static_cast<int>(std::log(static_cast<double>(bytes)) / std::log(1024.0));
  return fmt::format("{:.1f} {}iB", static_cast<double>(bytes) / std::pow(1024.0, exp), "KMGTPE"[exp - 1]);
}

// "10s 1min 10min" rates of one counter (Java's getPutTps / getGetFoundTps ... format).
std::string tpsTriple(const PutStatsSampler* s, std::initializer_list<StatKind> kinds) {
  if (!s) return "0.0 0.0 0.0";
  auto rate = [&](int seconds) {
    double sum = 0;
    for (auto k : kinds) sum += s->tps(k, seconds);
    return sum;
  };
  return fmt::format("{:.2f} {:.2f} {:.2f}", rate(10), rate(60), rate(600));
}
}  // namespace

RuntimeTable runtimeInfoTable(BrokerContext& ctx, const PutStatsSampler* sampler) {
  int64_t now = nowMillis();
  RuntimeTable kv;
  auto put = [&](std::string k, auto v) { kv.emplace_back(std::move(k), fmt::format("{}", v)); };
  put("brokerVersion", 407);
  put("brokerVersionDesc", "V4_9_7");
  put("bootTimestamp", sampler ? sampler->bootMs() : now);
  int64_t upMs = now - (sampler ? sampler->bootMs() : now);
  put("runtime", fmt::format("[ {} days, {} hours, {} minutes, {} seconds ]", upMs / 86400000,
                             upMs / 3600000 % 24, upMs / 60000 % 60, upMs / 1000 % 60));
  auto since = [&](StatKind k) { return sampler ? sampler->totalSinceBoot(k) : 0; };
  auto morning = [&](StatKind k) { return sampler ? sampler->totalAtMidnight(k) : 0; };
  auto yesterday = [&](StatKind k) { return sampler ? sampler->totalAtYesterdayMidnight(k) : 0; };
  int64_t total = since(StatPut);
  put("msgPutTotalTodayNow", total);
  put("msgPutTotalTodayMorning", morning(StatPut));
  put("msgPutTotalYesterdayMorning", yesterday(StatPut));
  put("msgGetTotalTodayNow", since(StatGetTransferred));
  put("msgGetTotalTodayMorning", morning(StatGetTransferred));
  put("msgGetTotalYesterdayMorning", yesterday(StatGetTransferred));
  put("putTps", tpsTriple(sampler, {StatPut}));
  put("getTransferedTps", tpsTriple(sampler, {StatGetTransferred}));
  put("getFoundTps", tpsTriple(sampler, {StatGetFound}));
  put("getMissTps", tpsTriple(sampler, {StatGetMiss}));
  put("getTotalTps", tpsTriple(sampler, {StatGetFound, StatGetMiss}));
  put("putMessageTimesTotal", std::max<int64_t>(total, 1));  // Java reports 1 before the first put
  put("commitLogMinOffset", ctx.store.minPhyOffset());
  put("commitLogMaxOffset", ctx.store.maxPhyOffset());
  put("remainHowManyDataToFlush", humanReadableBytes(ctx.store.maxPhyOffset() - ctx.store.flushedPhyOffset()));
  put("dispatchBehindBytes", ctx.store.maxPhyOffset() - ctx.store.dispatchedPhyOffset());
  // One commit-log path here (Java adds one commitLogDiskRatio_<path> per path of a multi-path list).
  double commitLogRatio = store::diskUsedRatio(ctx.storeConfig.commitLogDir());
  put("commitLogDiskRatio", commitLogRatio);
  put("commitLogDiskRatio_" + ctx.storeConfig.commitLogDir(), commitLogRatio);
  put("consumeQueueDiskRatio", store::diskUsedRatio(ctx.storeConfig.consumeQueueDir()));
  if (auto root = store::diskSpace(ctx.storeConfig.rootDir())) {
    put("commitLogDirCapacity", fmt::format("Total : {}, Free : {}.", humanReadableBytes(root->totalBytes),
                                            humanReadableBytes(root->usableBytes)));
  }
  put("earliestMessageTimeStamp", ctx.store.earliestMessageTime());
  put("startAcceptSendRequestTimeStamp", ctx.config.startAcceptSendRequestTimeStamp);
  put("brokerActive", "true");
  put("pageCacheLockTimeMills", ctx.store.lockTimeMills());
  // Java's StoreStatsService figures (since this process started).
  const auto& puts = putStats();
  auto stored = puts.topics.totals();
  int64_t putBytes = stored.bytes, putMsgs = stored.count;
  put("putMessageSizeTotal", putBytes);
  put("putMessageFailedTimes", puts.failedPuts.load(std::memory_order_relaxed));
  put("putMessageDistributeTime", sampler ? sampler->putDistributionText() : std::string("null"));
  put("putLatency99", fmt::format("{:.2f}", sampler ? sampler->putLatencyMillis(0.99) : 0.0));
  put("putLatency999", fmt::format("{:.2f}", sampler ? sampler->putLatencyMillis(0.999) : 0.0));
  put("putMessageAverageSize", fmt::format("{:.1f}", putMsgs > 0 ? double(putBytes) / double(putMsgs) : 0.0));
  put("putMessageEntireTimeMax", puts.putTimeMaxMicros.load(std::memory_order_relaxed) / 1000);
  put("getMessageEntireTimeMax", getStats().getTimeMaxMicros.load(std::memory_order_relaxed) / 1000);
  put("dispatchMaxBuffer", 0);  // Java 4.9 never raises it either
  // No thread-pool queues but the sends' one (the appends waiting for the store's append thread):
  // requests run on the network threads' io_contexts as they arrive.
  for (auto key : {"sendThreadPoolQueueHeadWaitTimeMills", "pullThreadPoolQueueHeadWaitTimeMills",
                   "queryThreadPoolQueueHeadWaitTimeMills"}) {
    put(key, 0);
  }
  put("sendThreadPoolQueueSize", ctx.store.appender().pending());
  for (auto key : {"pullThreadPoolQueueSize", "queryThreadPoolQueueSize", "remainTransientStoreBufferNumbs",
                   "EndTransactionQueueSize"}) {
    put(key, 0);
  }
  put("sendThreadPoolQueueCapacity", ctx.config.sendThreadPoolQueueCapacity);
  put("pullThreadPoolQueueCapacity", 100000);
  put("queryThreadPoolQueueCapacity", 20000);
  put("EndTransactionThreadPoolQueueCapacity", 100000);
  // As Java's ScheduleMessageService.buildRunningStats: only the levels of the offset table, i.e.
  // levels that delivered (or were corrected) since delayOffset.json began; a fresh broker has none.
  if (ctx.schedule) {
    for (auto [level, offset] : ctx.schedule->offsets()) {
      int64_t max = ctx.store.maxOffsetInQueue(topics::SCHEDULE_TOPIC, level - 1);
      put(fmt::format("scheduleMessageOffset_{}", level), fmt::format("{},{}", offset, std::max<int64_t>(max, 0)));
    }
  }
  if (ctx.timer)
    for (auto& [k, v] : ctx.timer->runtimeInfo()) put(k, v);
  if (ctx.pop) {
    pop::PopStats p = ctx.pop->stats();
    put("popInFlightCount", std::to_string(p.inFlight));
    put("popRedeliveredCount", std::to_string(p.redelivered));
    put("popDeadLetteredCount", std::to_string(p.deadLettered));
  }
  if (ctx.replication) ctx.replication->appendRuntimeInfo(kv);
  return kv;
}

std::string encodeRuntimeInfo(BrokerContext& ctx, const PutStatsSampler* sampler) {
  RuntimeTable kv = runtimeInfoTable(ctx, sampler);
  json::Writer w;
  w.beginObject().key("table").beginObject();
  for (auto& [k, v] : kv) w.key(k).value(v);
  w.endObject().endObject();
  return w.take();
}

}  // namespace rmq::broker
