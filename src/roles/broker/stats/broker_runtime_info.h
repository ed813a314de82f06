#pragma once
// GET_BROKER_RUNTIME_INFO body (KVTable, PROTOCOL.md §3.7) and the sampler behind its totals and
// TPS figures. The sampler counts stored messages as the sum of consume-queue max offsets (every
// put lands in exactly one queue) and reads the pull counters (broker_stats.h), once a second on
// ctx.background; readers (any thread) take its mutex.
#include <array>
#include <map>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "roles/broker/broker_context.h"

namespace rmq::broker {

class PutStatsSampler;

enum StatKind : size_t { StatPut, StatGetFound, StatGetMiss, StatGetTransferred, StatKindCount };
using Counts = std::array<int64_t, StatKindCount>;

// Starts the sampler (once per context, kept in ctx.putStats; later calls reuse it).
std::shared_ptr<PutStatsSampler> startPutStatsSampler(BrokerContext& ctx);
// The runtime table as (key, value) pairs in Java's key spelling; encodeRuntimeInfo wraps it
// in a KVTable ({"table":{...}}); GET /metrics turns it into rocketmq_brokeruntime_* gauges.
using RuntimeTable = std::vector<std::pair<std::string, std::string>>;
RuntimeTable runtimeInfoTable(BrokerContext& ctx, const PutStatsSampler* sampler);
std::string encodeRuntimeInfo(BrokerContext& ctx, const PutStatsSampler* sampler);
// Messages per second stored for `topic` over the last minute (0 before two samples), and the
// broker's put rate (all topics) the same way: rocketmq_producer_tps / rocketmq_broker_tps.
// Messages stored (sum of consume-queue max offsets; every put lands in exactly one queue, the
// delay queue excluded), and per topic into `perTopic` when given.
int64_t storedMessages(BrokerContext& ctx, std::map<std::string, int64_t>* perTopic);
double topicPutTps(const PutStatsSampler* sampler, const std::string& topic);
double brokerPutTps(const PutStatsSampler* sampler);
double brokerGetTps(const PutStatsSampler* sampler);

}  // namespace rmq::broker
