#pragma once
// GET_BROKER_RUNTIME_INFO body (KVTable, PROTOCOL.md §3.7) and the sampler behind its totals and
// TPS figures. The sampler counts stored messages as the sum of consume-queue max offsets (every
// put lands in exactly one queue) and reads the pull counters (broker_stats.h), once a second on
// ctx.background; readers (any thread) take its mutex.
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "roles/broker/broker_context.h"

namespace rmq::broker {

class PutStatsSampler;

enum StatKind : size_t { StatPut, StatGetFound, StatGetMiss, StatGetTransferred, StatKindCount };
using Counts = std::array<int64_t, StatKindCount>;

// Starts the sampler (once per context; later calls reuse it).
std::shared_ptr<PutStatsSampler> startPutStatsSampler(BrokerContext& ctx);
std::string encodeRuntimeInfo(BrokerContext& ctx, const PutStatsSampler* sampler);

}  // namespace rmq::broker
