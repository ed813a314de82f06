#pragma once
// RequestLatency: a latency histogram per request code the broker serves on its hot path (send,
// pull, heartbeat, offsets, ...), fed by the dispatcher's observer: relaxed atomics only, no lock
// per request. Codes outside the table are not recorded. Read by GET /metrics.
#include <array>
#include <chrono>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/metric_types.h"
#include "metrics/text_writer.h"

namespace rmq::broker {

class RequestLatency {
 public:
  RequestLatency();
  void observe(int code, std::chrono::steady_clock::duration elapsed);
  // rmqnode_request_duration_seconds{code, request}: _bucket, _sum, _count per tracked code.
  void write(metrics::TextWriter& w, const metrics::LabelList& brokerLabels) const;
  // Sends per latency range, as Java's putMessageDistributeTime (rocketmq_brokeruntime_pmdt_*):
  // (suffix, count) for 0ms, 0to10ms, 10to50ms, ... 10stomore; counts are not cumulative.
  std::vector<std::pair<std::string_view, uint64_t>> putDistribution() const;
  // The q-quantile of the send requests' processing time in milliseconds (RocketMQ 5's
  // putLatency99 / putLatency999: rocketmq_brokeruntime_put_latency_99 / _999); 0 before any send.
  double putLatencyMillis(double q) const;
  // The send codes' histograms merged (seconds), for a window: the difference of two snapshots.
  metrics::Histogram::Snapshot sendLatencies() const;
  // Java's StoreStatsService range names, in putDistribution() order ("[<=0ms]", "[0~10ms]", ...).
  static const std::array<std::string_view, 13>& javaPutRanges();

  struct Tracked {
    int code;
    std::string_view name;
  };
  static const std::array<Tracked, 12>& tracked();

 private:
  std::array<std::unique_ptr<metrics::Histogram>, 12> histograms_;
  metrics::Histogram putDistribution_;  // send codes only, Java's put-time ranges (ms)
};

}  // namespace rmq::broker
