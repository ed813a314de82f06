#pragma once
// GET /metrics of a broker: rocketmq-exporter's families (names and label names as
// apache/rocketmq-exporter's RMQMetricsCollector, so its Grafana dashboards work) computed from
// this broker alone, plus rmqnode_* figures of our own. Everything is read at scrape time from
// counters the hot path already keeps (relaxed atomics) or from the once-a-second sampler; the
// scrape takes the managers' own short locks, never a per-message lock.
#include <cstddef>

#include "metrics/text_writer.h"
#include "roles/broker/broker_context.h"

namespace rmq::broker {

class RequestLatency;
class ClientRuntimeStats;

struct BrokerMetricsSources {
  const RequestLatency* latency = nullptr;
  const ClientRuntimeStats* clientRuntime = nullptr;  // rocketmq_client_* (null: not collected)
  size_t connections = 0;  // open remoting connections (main + VIP port)
};

void writeBrokerMetrics(BrokerContext& ctx, const BrokerMetricsSources& sources, metrics::TextWriter& w);

}  // namespace rmq::broker
